-- A stack's frames as workspace places. Which frame names what, and how it becomes a workspace
-- file, line and column, is one rule in Rust (src/harmony/crash_frames.rs `Frame::form`,
-- source_maps.rs): a `.ets` frame is the source already (its module's srcPath applied), a
-- compiled `.ts` frame goes through its build's source map, and a frame that cannot be placed
-- says why. Every stack rein shows goes through rein.fs.map_stack: crashes, fault logs, tests.
local text = require("harmony.text")

local M = {}

-- `stack` (the text, one frame a line) → one mapped frame per line (rein.fs.map_stack's
-- `{ name, file, line, column, mapped, why, source_map, device }`); an empty array for no stack.
function M.map(stack)
  local lines = {}
  for _, line in ipairs(text.lines(stack or "")) do
    if text.trim(line) ~= "" then
      lines[#lines + 1] = line
    end
  end
  if #lines == 0 then
    return rein.json.array({})
  end
  return rein.fs.map_stack(lines)
end

-- The first of the mapped frames `source` whose file is in the workspace: the innermost place
-- in the project's own code as `{ file, line, column }`, or nil. A stack is the test code's to
-- print: a frame outside the workspace is never looked up (that would ask, and a yes would tell
-- whether it exists).
function M.locate(source)
  for _, frame in ipairs(source or {}) do
    if frame.mapped and rein.fs.in_workspace(frame.file) and rein.fs.exists(frame.file) then
      return { file = frame.file, line = frame.line, column = frame.column }
    end
  end
  return nil
end

return M
