-- An example tool `rein init` wrote: the app's bundle name and version. Try it with
-- `rein call app_version`, check it with `rein test app_version`, and make your own with
-- `rein new tool NAME`. The Lua API is in .rein/types (for your editor) and rein's book (docs/src/lua-api.md).

local APP_JSON = "AppScope/app.json5"

---@type rein.Tool
local tool = {
  name = "app_version",
  description = "The app's bundleName, versionCode and versionName, read from " .. APP_JSON .. ".",
  checks = {
    {
      files = {
        [APP_JSON] = '{ app: { bundleName: "com.example.demo", versionCode: 1000000, versionName: "1.0.0" } }',
      },
      expect = { bundle_name = "com.example.demo", version_code = 1000000, version_name = "1.0.0" },
    },
  },
  run = function()
    local app = rein.json5.decode(rein.fs.read_text(APP_JSON).text).app
    if app == nil then
      rein.error("FIELD_NOT_FOUND", APP_JSON .. " has no `app` object; is this a HarmonyOS app?")
    end
    return {
      bundle_name = app.bundleName,
      version_code = app.versionCode,
      version_name = app.versionName,
    }
  end,
}

return tool
