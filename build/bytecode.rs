//! Compiles rein's own Lua to bytecode at build time, with the Lua rein runs (mlua-sys's
//! vendored Lua 5.4, a build dependency of the same version as the one linked in). Parsing
//! that code was about a fifth of a `rein call` and of every Lua state a server builds.
//!
//! Only when the build runs on the machine it builds for: bytecode holds the sizes of the
//! target's integers and numbers, and a cross build (Windows from Linux, in CI) gets an empty
//! table and compiles from text as before. At run time Lua checks the bytecode's header too
//! and rein falls back to the text if it does not match (`src/lua/compiled.rs`).

use std::ffi::{c_int, c_void, CString};
use std::path::Path;

use mlua_sys as ffi;

/// Writes `precompiled.rs` into `out_dir`: `PRECOMPILED`, each chunk's label, text and
/// bytecode. `chunks` are `(label, path under root)`.
pub fn write_table(root: &Path, out_dir: &Path, chunks: &[(String, String)]) {
    let native = std::env::var("HOST").ok() == std::env::var("TARGET").ok();
    // Tells the crate's tests which table to expect.
    println!("cargo:rustc-env=REIN_LUA_PRECOMPILED={}", if native { "yes" } else { "no: a cross build" });
    let mut table = String::from("pub static PRECOMPILED: &[(&str, &str, &[u8])] = &[\n");
    if native {
        std::fs::create_dir_all(out_dir.join("bytecode")).expect("make the bytecode folder");
        for (index, (label, rel)) in chunks.iter().enumerate() {
            let text = std::fs::read_to_string(root.join(rel)).unwrap_or_else(|e| panic!("read {rel}: {e}"));
            let code = compile(label, &text).unwrap_or_else(|e| panic!("{rel} does not compile: {e}"));
            let file = out_dir.join("bytecode").join(format!("{index}.luac"));
            std::fs::write(&file, code).expect("write bytecode");
            table.push_str(&format!(
                "    ({label:?}, include_str!(concat!(env!(\"CARGO_MANIFEST_DIR\"), \"/\", {rel:?})), include_bytes!({:?})),\n",
                file.display().to_string()
            ));
        }
    }
    table.push_str("];\n");
    std::fs::write(out_dir.join("precompiled.rs"), table).expect("write precompiled.rs");
}

/// `text`'s bytecode, named `@label` as `src/lua/compiled.rs` names it when it compiles at
/// run time (Lua keeps that name in the bytecode, for error messages and tracebacks).
fn compile(label: &str, text: &str) -> Result<Vec<u8>, String> {
    let name = CString::new(format!("@{label}")).map_err(|e| e.to_string())?;
    let mode = CString::new("t").expect("no NUL");
    let mut code = Vec::new();
    // SAFETY: a fresh state used on this thread only and closed before returning; the buffer
    // and names outlive every call that reads them; the writer only appends to `code`.
    unsafe {
        let state = ffi::luaL_newstate();
        if state.is_null() {
            return Err("cannot create a Lua state".into());
        }
        let status = ffi::luaL_loadbufferx(state, text.as_ptr().cast(), text.len(), name.as_ptr(), mode.as_ptr());
        let result = if status != ffi::LUA_OK {
            let mut len = 0;
            let message = ffi::lua_tolstring(state, -1, &mut len);
            Err(String::from_utf8_lossy(std::slice::from_raw_parts(message.cast::<u8>(), len)).into_owned())
        } else if ffi::lua_dump(state, writer, (&raw mut code).cast(), 0) != 0 {
            Err("lua_dump failed".into())
        } else {
            Ok(())
        };
        ffi::lua_close(state);
        result.map(|()| code)
    }
}

unsafe extern "C-unwind" fn writer(_: *mut ffi::lua_State, p: *const c_void, size: usize, ud: *mut c_void) -> c_int {
    // SAFETY: `ud` is the Vec `compile` passed; `p` holds `size` bytes Lua wrote.
    unsafe {
        let code = &mut *ud.cast::<Vec<u8>>();
        code.extend_from_slice(std::slice::from_raw_parts(p.cast::<u8>(), size));
    }
    0
}
