-- Waiting against a deadline of wall-clock time: what each look takes counts, as the sleeps
-- do. (Counted in sleeps alone, a deadline stretched with every slow program a look runs: an
-- hdc call of 2 s made a 3-minute wait a quarter of an hour.)
local M = {}

---@class rein.wait.Budget
---@field private started integer
---@field private budget_ms integer
local Budget = {}
Budget.__index = Budget

-- A budget of `budget_ms` from now.
---@param budget_ms integer
---@return rein.wait.Budget
function M.budget(budget_ms)
  return setmetatable({ started = rein.now_ms(), budget_ms = budget_ms }, Budget)
end

-- The milliseconds since the budget began.
---@return integer
function Budget:waited()
  return rein.now_ms() - self.started
end

-- Whether the budget is spent.
---@return boolean
function Budget:over()
  return self:waited() >= self.budget_ms
end

-- Sleeps `ms`, or less where the deadline comes first (one more look then lands on it).
---@param ms integer
function Budget:pause(ms)
  local left = self.budget_ms - self:waited()
  if left > 0 then
    rein.sleep(math.min(ms, left))
  end
end

return M
