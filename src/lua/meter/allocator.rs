//! The engine's allocator, metered while a call runs. The budget hook runs between VM
//! instructions, never inside C, yet one instruction can make C work for long: `..`,
//! `string.upper` or `string.format` on a large string, a table growing, `table.concat`'s
//! buffer. What they have in common is that they build something, so each block of
//! [`CHARGED_FROM`] bytes or more is charged by its size as it is handed out (which also
//! looks at the clock and the cancel), and refused once the call is stopped: such a function
//! stops at its next block with "not enough memory", which the budget turns into its breach.
//! Smaller blocks are paid for by the instruction count of whatever asked for them.
//!
//! Between calls the engine's own allocator is back in place, so mlua's memory accounting
//! (the ceiling, `used_memory`) reads the state as it always does.

use std::os::raw::c_void;
use std::ptr::null_mut;
use std::sync::Arc;

use mlua::{ffi, Lua};

use super::Meter;

/// Blocks this large are charged; a smaller one costs at most this much copying per
/// instruction, which the instruction count already bounds.
pub const CHARGED_FROM: usize = 4096;

pub(crate) struct MeteredAllocator {
    /// The state's main thread (`lua_setallocf` sets the allocator of the whole state).
    main: *mut ffi::lua_State,
    engine: ffi::lua_Alloc,
    engine_data: *mut c_void,
    meter: Arc<Meter>,
}

impl MeteredAllocator {
    /// The metering allocator of `lua`, switched off. It must be dropped after `lua` stops
    /// being used, and switched off before `lua` is closed (the runtime's drop does both).
    pub(crate) fn new(lua: &Lua, meter: Arc<Meter>) -> mlua::Result<Box<MeteredAllocator>> {
        let mut main = null_mut();
        // SAFETY: reads the pointer of the state's running thread, the main one (no coroutine
        // runs while the state is built); nothing is pushed or popped.
        unsafe { lua.exec_raw::<()>((), |state| main = state)? };
        let mut engine_data = null_mut();
        // SAFETY: `main` is a live state; lua_getallocf only reads.
        let engine = unsafe { ffi::lua_getallocf(main, &mut engine_data) };
        Ok(Box::new(MeteredAllocator { main, engine, engine_data, meter }))
    }

    /// From now on every allocation of the state goes through the meter.
    pub(crate) fn switch_on(&self) {
        // SAFETY: `self` is boxed (its address stays) and lives until the state is closed;
        // no allocation is under way (the thread running the state is here).
        unsafe { ffi::lua_setallocf(self.main, metered, self as *const MeteredAllocator as *mut c_void) }
    }

    /// The engine's allocator again, as mlua installed it.
    pub(crate) fn switch_off(&self) {
        // SAFETY: as in `switch_on`; blocks from either allocator are the same to the engine's.
        unsafe { ffi::lua_setallocf(self.main, self.engine, self.engine_data) }
    }
}

/// Lua's `lua_Alloc`, forwarding to the engine's after charging blocks that grow.
unsafe extern "C" fn metered(data: *mut c_void, block: *mut c_void, old_size: usize, new_size: usize) -> *mut c_void {
    // SAFETY: `data` is the boxed MeteredAllocator `switch_on` installed, alive until switched off.
    let this = unsafe { &*(data as *const MeteredAllocator) };
    // With no block, `old_size` is the kind of object, not a size.
    let before = if block.is_null() { 0 } else { old_size };
    let charged = new_size >= CHARGED_FROM && new_size > before;
    if charged && this.meter.spend(0).is_some() {
        return null_mut();
    }
    // SAFETY: the engine's allocator with its own data, as Lua would call it.
    let given = unsafe { (this.engine)(this.engine_data, block, old_size, new_size) };
    // Charged once given: a block over the memory ceiling is that breach, not the count's.
    // A breach found here stops the call at its next block or check.
    if charged && !given.is_null() {
        this.meter.spend(super::for_bytes((new_size - before) as u64));
    }
    given
}
