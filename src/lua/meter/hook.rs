//! The budget hook, and the protected call coroutine bodies run in so that it can stop them.
//!
//! The hook is Lua's count hook, set on the state's main thread: every thread created from a
//! hooked one inherits it (`lua_newthread` copies it), so scripts' coroutines and the threads
//! the runtime starts are all counted. It reaches the meter through the thread's extra space,
//! which `lua_newthread` also copies. It is a plain C hook rather than mlua's: after mlua's
//! hook raised the budget error, Lua ran a `<close>` handler of the function it stopped
//! without calling that hook again (and so without a budget); a C hook that raises is called
//! in the handler as Lua documents.
//!
//! An error raised from a hook leaves the thread it escapes with hooks off until a protected
//! call catches it; Lua runs the pending `<close>` handlers of a coroutine that died that way
//! when `coroutine.wrap` or `coroutine.close` closes it, with hooks still off. The bootstrap
//! runs each coroutine body inside Lua's own (yieldable) pcall, [`yieldable_pcall`], so the
//! error is caught inside the coroutine, where Lua turns hooks back on before closing.

use std::os::raw::c_int;
use std::sync::{Arc, OnceLock};

use mlua::ffi::{self, lua_State};
use mlua::{Function, Lua};

use super::Meter;
use crate::lua::limits::HOOK_EVERY;

/// Sets the budget hook on `lua`'s main thread (before any other thread exists) with `meter`,
/// which must outlive the state.
pub(crate) fn install(lua: &Lua, meter: &Arc<Meter>) -> mlua::Result<()> {
    let meter = Arc::as_ptr(meter);
    // SAFETY: the state was just created, so the running thread is the main one; its extra
    // space is ours (mlua does not use it) and holds exactly one pointer.
    unsafe {
        lua.exec_raw::<()>((), |state| {
            *(ffi::lua_getextraspace(state) as *mut *const Meter) = meter;
            ffi::lua_sethook(state, Some(budget_hook), ffi::LUA_MASKCOUNT, HOOK_EVERY as c_int);
        })
    }
}

unsafe extern "C-unwind" fn budget_hook(state: *mut lua_State, _: *mut ffi::lua_Debug) {
    // SAFETY: every thread of the state carries the meter pointer `install` set (copied by
    // lua_newthread); the meter outlives the state.
    unsafe {
        let meter = *(ffi::lua_getextraspace(state) as *const *const Meter);
        if meter.is_null() {
            return;
        }
        if let Some(breach) = (*meter).spend(u64::from(HOOK_EVERY)) {
            super::library::raise(state, breach);
        }
    }
}

/// Lua's own `pcall` (mlua replaces the global one with a version that cannot yield), for the
/// bootstrap to run coroutine bodies in. The bootstrap passes every error it catches on.
pub(crate) fn yieldable_pcall(lua: &Lua) -> mlua::Result<Function> {
    static BASE_PCALL: OnceLock<Option<ffi::lua_CFunction>> = OnceLock::new();
    let pcall = BASE_PCALL.get_or_init(|| {
        // SAFETY: a throwaway state with only the base library, closed before returning; the
        // function pointer read from it is static code of the Lua library, not of the state.
        unsafe {
            let state = ffi::luaL_newstate();
            if state.is_null() {
                return None;
            }
            ffi::luaL_requiref(state, c"_G".as_ptr(), ffi::luaopen_base, 1);
            ffi::lua_getfield(state, -1, c"pcall".as_ptr());
            let pcall = ffi::lua_tocfunction(state, -1);
            ffi::lua_close(state);
            pcall
        }
    });
    let pcall = pcall.ok_or_else(|| mlua::Error::runtime("Lua's own pcall is not available"))?;
    // SAFETY: luaB_pcall is an ordinary lua_CFunction.
    unsafe { lua.create_c_function(pcall) }
}
