-- An example tool of the pack "__PACK__": once the pack is added to a project it is called
-- `__PACK__.hello`. Check it here with `rein check` and `rein test`.

---@type rein.Tool
local tool = {
  name = "hello",
  description = "Greets `who`. Returns the greeting.",
  params = {
    who = { type = "string", default = "HarmonyOS", description = "Whom to greet" },
  },
  checks = {
    { args = { who = "rein" }, expect = { greeting = "Hello, rein!" } },
  },
  run = function(args)
    return { greeting = "Hello, " .. args.who .. "!" }
  end,
}

return tool
