-- The log line that proves an ability started (required as "device-lab.markers").
local M = {}

function M.on_create(ability)
  return ability .. " onCreate"
end

return M
