//! The standard functions that can work long in C without building anything the allocator
//! would charge, made to pay for that work before (or, for a bounded amount, right after)
//! they do it. the book's "Limits" (docs/src/lua-api.md) has the table of every library function and what bounds it.
//!
//! Each is a C closure in the state with the meter as its first upvalue and, where it
//! forwards, the engine's own function as its second: it runs in the same frame as the
//! function it stands for, so Lua's error messages still name the script's line and the
//! function as the script called it (`bad argument #2 to 'move'`).
//!
//! `table.insert`, `table.remove` and `table.sort` are ports of ltablib.c (Lua 5.4.8) rather
//! than wrappers: their loop length comes from `#t`, which may run a `__len` metamethod, and a
//! wrapper would have to ask it a second time (a script's `__len` may answer differently).

use std::ffi::CStr;
use std::os::raw::{c_int, c_void};
use std::sync::Arc;

use mlua::ffi::{self, lua_State};
use mlua::Lua;

use super::Meter;
use crate::lua::limits::Breach;

/// Replaces the metered functions in the fresh state's library tables (before the bootstrap
/// seals them). `meter` must outlive the state.
pub(crate) fn install(lua: &Lua, meter: &Arc<Meter>) -> mlua::Result<()> {
    let meter = Arc::as_ptr(meter) as *mut c_void;
    // SAFETY: runs on the state's own thread before any script; each step keeps the stack
    // balanced, and every name exists in Lua 5.4's libraries.
    unsafe {
        lua.exec_raw::<()>((), |state| {
            for (table, name, function) in METERED {
                replace(state, table, name, *function, meter);
            }
            string_arithmetic(state, meter);
        })
    }
}

type Table = Option<&'static CStr>;

const METERED: &[(Table, &CStr, ffi::lua_CFunction)] = &[
    (Some(c"table"), c"move", table_move),
    (Some(c"table"), c"concat", table_concat),
    (Some(c"table"), c"unpack", charge_results),
    (Some(c"table"), c"pack", charge_arguments),
    (Some(c"table"), c"insert", table_insert),
    (Some(c"table"), c"remove", table_remove),
    (Some(c"table"), c"sort", table_sort),
    (Some(c"string"), c"rep", string_rep),
    (Some(c"string"), c"byte", charge_results),
    (Some(c"string"), c"char", charge_arguments),
    (Some(c"string"), c"format", charge_first_string),
    (Some(c"string"), c"pack", charge_first_string),
    (Some(c"string"), c"packsize", charge_first_string),
    (Some(c"string"), c"unpack", charge_first_string_and_results),
    (Some(c"utf8"), c"char", charge_arguments),
    (Some(c"utf8"), c"codepoint", charge_results),
    (Some(c"utf8"), c"len", charge_first_string),
    (Some(c"utf8"), c"offset", charge_first_string),
    (None, c"select", charge_results),
    (None, c"tonumber", charge_first_string),
];

/// The string metatable's arithmetic (`"10" + 1`): each converts its strings, scanning them.
const STRING_ARITHMETIC: [&CStr; 8] = [c"__add", c"__sub", c"__mul", c"__mod", c"__pow", c"__div", c"__idiv", c"__unm"];

/// `table[name]` (a global when `table` is None) becomes `function` with the meter and the
/// engine's function as upvalues.
unsafe fn replace(state: *mut lua_State, table: &Table, name: &CStr, function: ffi::lua_CFunction, meter: *mut c_void) {
    unsafe {
        match table {
            Some(table) => ffi::lua_getglobal(state, table.as_ptr()),
            None => ffi::lua_pushglobaltable(state),
        };
        ffi::lua_pushlightuserdata(state, meter);
        ffi::lua_getfield(state, -2, name.as_ptr());
        ffi::lua_pushcclosure(state, function, 2);
        ffi::lua_setfield(state, -2, name.as_ptr());
        ffi::lua_pop(state, 1);
    }
}

unsafe fn string_arithmetic(state: *mut lua_State, meter: *mut c_void) {
    unsafe {
        ffi::lua_pushliteral(state, c"");
        if ffi::lua_getmetatable(state, -1) == 0 {
            ffi::lua_pop(state, 1);
            return;
        }
        for name in STRING_ARITHMETIC {
            ffi::lua_pushlightuserdata(state, meter);
            if ffi::lua_getfield(state, -2, name.as_ptr()) != ffi::LUA_TFUNCTION {
                ffi::lua_pop(state, 2);
                continue;
            }
            ffi::lua_pushcclosure(state, charge_strings, 2);
            ffi::lua_setfield(state, -2, name.as_ptr());
        }
        ffi::lua_pop(state, 2);
    }
}

unsafe fn meter<'a>(state: *mut lua_State) -> &'a Meter {
    // SAFETY: upvalue 1 of every closure here is the state's meter, which outlives the state.
    unsafe { &*(ffi::lua_touserdata(state, ffi::lua_upvalueindex(1)) as *const Meter) }
}

/// Charges `units`; raises the breach once the call must stop.
unsafe fn pay(state: *mut lua_State, units: u64) {
    unsafe {
        if let Some(breach) = meter(state).spend(units) {
            raise(state, breach);
        }
    }
}

/// Raises `breach` as an error (the bootstrap's pcall wrappers pass it on, the runtime reports
/// the breach the meter holds). Nothing with a destructor is alive across `lua_error`.
pub(super) unsafe fn raise(state: *mut lua_State, breach: Breach) -> ! {
    let message = breach.message();
    // Room for the message: a function may have filled its stack with results.
    unsafe {
        ffi::lua_checkstack(state, 1);
        ffi::lua_pushlstring(state, message.as_ptr().cast(), message.len());
    }
    drop(message);
    unsafe { ffi::lua_error(state) }
}

/// Runs the engine's function (upvalue 2) in this frame.
unsafe fn forward(state: *mut lua_State) -> c_int {
    unsafe {
        match ffi::lua_tocfunction(state, ffi::lua_upvalueindex(2)) {
            Some(engine) => engine(state),
            None => 0,
        }
    }
}

unsafe fn integer(state: *mut lua_State, index: c_int) -> Option<i64> {
    let mut is_integer = 0;
    let value = unsafe { ffi::lua_tointegerx(state, index, &mut is_integer) };
    (is_integer != 0).then_some(value)
}

/// What scanning argument `index` costs, if it is a string.
unsafe fn string_length(state: *mut lua_State, index: c_int) -> u64 {
    unsafe {
        if ffi::lua_type(state, index) == ffi::LUA_TSTRING {
            super::for_bytes(ffi::lua_rawlen(state, index) as u64)
        } else {
            0
        }
    }
}

/// Elements from `first` to `last` (none when `last < first`).
fn span(first: i64, last: i64) -> u64 {
    (i128::from(last) - i128::from(first) + 1).clamp(0, i128::from(u64::MAX)) as u64
}

unsafe extern "C-unwind" fn charge_results(state: *mut lua_State) -> c_int {
    unsafe {
        let results = forward(state);
        pay(state, results as u64);
        results
    }
}

unsafe extern "C-unwind" fn charge_arguments(state: *mut lua_State) -> c_int {
    unsafe {
        pay(state, ffi::lua_gettop(state) as u64);
        forward(state)
    }
}

unsafe extern "C-unwind" fn charge_first_string(state: *mut lua_State) -> c_int {
    unsafe {
        pay(state, string_length(state, 1));
        forward(state)
    }
}

unsafe extern "C-unwind" fn charge_first_string_and_results(state: *mut lua_State) -> c_int {
    unsafe {
        pay(state, string_length(state, 1));
        charge_results(state)
    }
}

unsafe extern "C-unwind" fn charge_strings(state: *mut lua_State) -> c_int {
    unsafe {
        pay(state, string_length(state, 1) + string_length(state, 2));
        forward(state)
    }
}

/// `string.rep(s, n, sep)`: n copies, each paid for even when empty (nothing is allocated then).
unsafe extern "C-unwind" fn string_rep(state: *mut lua_State) -> c_int {
    unsafe {
        pay(state, integer(state, 2).map_or(0, |n| n.max(0) as u64));
        forward(state)
    }
}

/// `table.move(a1, f, e, t, a2)`: e - f + 1 elements, whatever their metamethods.
unsafe extern "C-unwind" fn table_move(state: *mut lua_State) -> c_int {
    unsafe {
        if let (Some(first), Some(last)) = (integer(state, 2), integer(state, 3)) {
            pay(state, span(first, last));
        }
        forward(state)
    }
}

/// `table.concat(t, sep, i, j)`: j - i + 1 elements (j defaults to `#t`; with a `__len`
/// metamethod, which is not asked twice, the result's growth pays instead).
unsafe extern "C-unwind" fn table_concat(state: *mut lua_State) -> c_int {
    unsafe {
        let first = integer(state, 3).unwrap_or(1);
        let last = match integer(state, 4) {
            Some(last) => Some(last),
            None if ffi::lua_type(state, 1) == ffi::LUA_TTABLE => {
                match ffi::luaL_getmetafield(state, 1, c"__len".as_ptr()) {
                    ffi::LUA_TNIL => Some(ffi::lua_rawlen(state, 1) as i64),
                    _ => {
                        ffi::lua_pop(state, 1);
                        None
                    }
                }
            }
            None => None,
        };
        if let Some(last) = last {
            pay(state, span(first, last));
        }
        forward(state)
    }
}

const TAB_R: c_int = 1;
const TAB_W: c_int = 2;
const TAB_L: c_int = 4;

/// ltablib.c's `checktab`: a table, or something with the metamethods to act as one.
unsafe fn check_table(state: *mut lua_State, arg: c_int, what: c_int) {
    unsafe {
        if ffi::lua_type(state, arg) == ffi::LUA_TTABLE {
            return;
        }
        let mut pushed = 1;
        let mut has = |key: &CStr, needed: c_int| {
            if what & needed == 0 {
                return true;
            }
            pushed += 1;
            ffi::lua_pushstring(state, key.as_ptr());
            ffi::lua_rawget(state, -pushed) != ffi::LUA_TNIL
        };
        if ffi::lua_getmetatable(state, arg) != 0
            && has(c"__index", TAB_R)
            && has(c"__newindex", TAB_W)
            && has(c"__len", TAB_L)
        {
            ffi::lua_pop(state, pushed);
        } else {
            ffi::luaL_checktype(state, arg, ffi::LUA_TTABLE);
        }
    }
}

/// ltablib.c's `aux_getn`: `#t`, asked once.
unsafe fn length(state: *mut lua_State, what: c_int) -> i64 {
    unsafe {
        check_table(state, 1, what | TAB_L);
        ffi::luaL_len(state, 1)
    }
}

/// ltablib.c's `tinsert`, paying for the elements it moves up.
unsafe extern "C-unwind" fn table_insert(state: *mut lua_State) -> c_int {
    unsafe {
        let end = (length(state, TAB_R | TAB_W) as u64).wrapping_add(1) as i64;
        let position = match ffi::lua_gettop(state) {
            2 => end,
            3 => {
                let position = ffi::luaL_checkinteger(state, 2);
                let inside = (position as u64).wrapping_sub(1) < end as u64;
                ffi::luaL_argcheck(state, inside as c_int, 2, c"position out of bounds".as_ptr());
                pay(state, if end > position { span(position + 1, end) } else { 0 });
                let mut i = end;
                while i > position {
                    ffi::lua_geti(state, 1, i - 1);
                    ffi::lua_seti(state, 1, i);
                    i -= 1;
                }
                position
            }
            _ => {
                ffi::luaL_error(state, c"wrong number of arguments to 'insert'".as_ptr());
                return 0;
            }
        };
        ffi::lua_seti(state, 1, position);
        0
    }
}

/// ltablib.c's `tremove`, paying for the elements it moves down.
unsafe extern "C-unwind" fn table_remove(state: *mut lua_State) -> c_int {
    unsafe {
        let size = length(state, TAB_R | TAB_W);
        let mut position = ffi::luaL_optinteger(state, 2, size);
        if position != size {
            let inside = (position as u64).wrapping_sub(1) <= size as u64;
            ffi::luaL_argcheck(state, inside as c_int, 2, c"position out of bounds".as_ptr());
        }
        ffi::lua_geti(state, 1, position);
        if size > position {
            pay(state, span(position + 1, size));
        }
        while position < size {
            ffi::lua_geti(state, 1, position + 1);
            ffi::lua_seti(state, 1, position);
            position += 1;
        }
        ffi::lua_pushnil(state);
        ffi::lua_seti(state, 1, position);
        1
    }
}

/// `table.sort(t, comp)`: the engine's sort, comparing through a closure that pays one unit a
/// comparison (so a `__len` or `__index` that invents elements cannot make it sort for hours).
unsafe extern "C-unwind" fn table_sort(state: *mut lua_State) -> c_int {
    unsafe {
        if matches!(ffi::lua_type(state, 2), ffi::LUA_TNONE | ffi::LUA_TNIL | ffi::LUA_TFUNCTION) {
            ffi::lua_settop(state, 2);
            ffi::lua_pushvalue(state, ffi::lua_upvalueindex(1));
            ffi::lua_pushvalue(state, 2);
            ffi::lua_pushcclosure(state, compare, 2);
            ffi::lua_replace(state, 2);
        }
        forward(state)
    }
}

/// `a < b` for the sort: the script's comparator (upvalue 2) or the `<` operator.
unsafe extern "C-unwind" fn compare(state: *mut lua_State) -> c_int {
    unsafe {
        pay(state, 1);
        if ffi::lua_type(state, ffi::lua_upvalueindex(2)) == ffi::LUA_TFUNCTION {
            ffi::lua_pushvalue(state, ffi::lua_upvalueindex(2));
            ffi::lua_pushvalue(state, 1);
            ffi::lua_pushvalue(state, 2);
            ffi::lua_call(state, 2, 1);
        } else {
            let less = ffi::lua_compare(state, 1, 2, ffi::LUA_OPLT);
            ffi::lua_pushboolean(state, less);
        }
        1
    }
}
