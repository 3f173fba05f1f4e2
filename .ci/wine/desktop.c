/* Makes Wine's desktop window before any test runs. Test harness only (.ci/wine-test); never
 * part of rein.
 *
 * The first Wine process that needs the desktop window starts `explorer.exe /desktop`, which
 * then lives as long as the wineserver, and hands it its own stderr handle
 * (STARTF_USESTDHANDLES with hStdError = GetStdHandle(STD_ERROR_HANDLE): Wine 8's
 * dlls/win32u, where the desktop window is first asked for). When that process was one a test
 * started with its stderr piped, the test waits for the end of that pipe for ever: a rein.exe
 * long gone, explorer.exe still holding the pipe's write end (seen: two harmony_emulator tests
 * blocked 20 minutes in GetOverlappedResult). Run once with stderr on /dev/null, this program
 * is that first process. */
#include <windows.h>

int main(void)
{
    return GetDesktopWindow() != NULL ? 0 : 1;
}
