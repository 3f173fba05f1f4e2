/* A stand-in for Windows' bcryptprimitives.dll, which Wine 8.0 does not have: Rust's std
 * (1.78 and later) imports ProcessPrng from it for its random numbers (HashMap seeds), so no
 * Rust program starts under Wine 8 without it. Test harness only (.ci/wine-test puts it in
 * the Wine prefix); never part of rein.
 *
 * ProcessPrng (https://learn.microsoft.com/en-us/windows/win32/seccng/processprng):
 *   BOOL ProcessPrng(PBYTE pbData, SIZE_T cbData); always returns TRUE.
 * RtlGenRandom, exported by advapi32 as SystemFunction036
 * (https://learn.microsoft.com/en-us/windows/win32/api/ntsecapi/nf-ntsecapi-rtlgenrandom),
 * fills at most a ULONG's worth per call, so larger requests are served in pieces. */
#include <windows.h>

BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);

BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T length)
{
    while (length > 0) {
        ULONG piece = length > 0x40000000 ? 0x40000000 : (ULONG)length;
        if (!SystemFunction036(data, piece))
            return FALSE;
        data += piece;
        length -= piece;
    }
    return TRUE;
}
