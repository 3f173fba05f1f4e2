-- Stack frames that name ArkTS source, as workspace places (file, line, column), like ArkTS
-- build errors. Frame forms (shared/HARMONY-VERIFY.md §7, §1.3):
--   at f (entry|entry|1.0.0|src/ohosTest/ets/test/List.test.ets:12:5)   module|package|version|path
--   at f (entry/src/main/ets/pages/Index.ets:25:3)                      a path from the project root
-- In the first form the path is the module's own (relative to its srcPath); `<m>_test` is module
-- m's test code. Only `.ets` frames are read here: a compiled `.ts` frame needs its source map,
-- which a caller that has one maps first and then hands the mapped frame to `place`.
local project = require("harmony.project")

local M = {}

-- One frame's text → `{ file, line, column }` with `file` a workspace path (the module's
-- srcPath applied), or nil when the frame names no `.ets` file. `info` is project.read()'s.
-- The file need not exist (the caller decides whether a missing file matters).
function M.place(frame, info)
  local path, line, column = (frame or ""):match("([^%s%(%)]+%.ets):(%d+):(%d+)")
  if not path then
    return nil
  end
  local module_name, rel = path:match("^([^|]+)|.*|([^|]+)$")
  if module_name then
    local module = project.module_named(info, (module_name:gsub("_test$", "")))
    path = module and (module.src_path .. "/" .. rel) or rel
  end
  return { file = path, line = tonumber(line), column = tonumber(column) }
end

-- The first frame of `stack` (lines) whose `.ets` file is in the workspace: the innermost
-- place in the project's own code, or nil. A stack is the test code's to print: a frame outside
-- the workspace is never looked up (that would ask, and a yes would tell whether it exists).
function M.locate(stack, info)
  for frame in (stack or ""):gmatch("[^\n]+") do
    local place = M.place(frame, info)
    if place and rein.fs.in_workspace(place.file) and rein.fs.exists(place.file) then
      return place
    end
  end
  return nil
end

return M
