-- A project's on-device tests, as xdevice runs them (shared/HARMONY-VERIFY.md §1): build the
-- app and its test HAP (`<module>@ohosTest`), sign both, install them together, run
-- `aa test -b <bundle> -m <module>_test -s unittest <runner>` with the caller's filters, and
-- read the results per test (harmony.hypium). rein drives this itself: hvigor's onDeviceTest
-- would run hdc, which no program rein runs may reach.
local clock = require("harmony.clock")
local crashes = require("harmony.crashes")
local device = require("harmony.device")
local frames = require("harmony.frames")
local hdc = require("harmony.hdc")
local hvigor = require("harmony.hvigor")
local hypium = require("harmony.hypium")
local project = require("harmony.project")
local readiness = require("harmony.readiness")
local signer = require("harmony.signer")
local signing = require("harmony.signing")

local M = {}

-- The filters a run of the tests takes (Hypium's `-s` keys and aa's `-w`): the device_test
-- tool's, and those of the recipes that run the tests after their own proof.
function M.filter_params()
  return {
    class = {
      type = "string",
      optional = true,
    },
    not_class = { type = "string", optional = true },
    it_name = {
      type = "string",
      optional = true,
    },
    level = { type = "integer", optional = true },
    size = { type = "string", optional = true, enum = { "small", "medium", "large" } },
    test_type = { type = "string", optional = true, enum = hypium.test_types() },
    timeout_ms = {
      type = "integer",
      optional = true,
    },
    deadline_s = {
      type = "integer",
      optional = true,
    },
  }
end

-- The device_test tool's parameters (the `test` recipe's too).
function M.params()
  local params = M.filter_params()
  params.module = {
    type = "string",
    optional = true,
  }
  params.product = { type = "string", default = "default" }
  params.runner = {
    type = "string",
    optional = true,
  }
  params.list_first = {
    type = "boolean",
    default = true,
  }
  params.build_timeout_ms = { type = "integer", optional = true }
  params.target = device.target_param()
  params.server = device.server_param()
  return params
end

-- The `test` recipe's parameters: the filters as one object (`test_filters`), as the other
-- recipes take them, so tools/list carries device_test's filter list once.
function M.recipe_params()
  return {
    module = { type = "string", optional = true },
    product = { type = "string", default = "default" },
    test_filters = M.FILTERS_PARAM,
    target = device.target_param(),
    server = device.server_param(),
  }
end

-- A recipe's arguments as device_test takes them (the filters checked and spread out).
function M.args_of_recipe(args)
  local flat = M.filters_of(args.test_filters)
  flat.module, flat.product = args.module, args.product
  flat.target, flat.server = args.target, args.server
  return flat
end

-- The runner the template's test module has: the file in `src/ohosTest/ets/testrunner/`.
local DEFAULT_RUNNER = "OpenHarmonyTestRunner"

local function runner_of(src)
  local dir = src .. "/src/ohosTest/ets/testrunner"
  if not rein.fs.exists(dir) then
    return DEFAULT_RUNNER
  end
  for _, entry in ipairs(rein.fs.list(dir, { depth = 1 }).entries) do
    local stem = entry.path:match("([^/]+)%.ets$")
    if entry.kind == "file" and stem then
      return stem
    end
  end
  return DEFAULT_RUNNER
end

-- What the run needs before anything is built: the project, the module whose tests run, its
-- test module and runner, how the product is signed. INVALID_ARGS for a module without
-- `src/ohosTest`; SIGNING_NOT_CONFIGURED as the recipes raise it.
function M.plan(args)
  for _, name in ipairs({ "level", "timeout_ms", "deadline_s" }) do
    local value = args[name]
    if value ~= nil and (value < 0 or (name == "level" and value > 4)) then
      rein.error(
        "INVALID_ARGS",
        name .. " must be " .. (name == "level" and "0 to 4" or "0 or more") .. ", not " .. value,
        { [name] = value }
      )
    end
  end
  local info = project.read()
  local module = project.module_or_refuse(info, args.module)
  local manifest = module.src_path .. "/src/ohosTest/module.json5"
  if not rein.fs.exists(manifest) then
    rein.error(
      "INVALID_ARGS",
      "module " .. module.name .. " has no on-device tests: " .. manifest .. " does not exist",
      {
        module = module.name,
        remedy = "add src/ohosTest as DevEco creates it (module.json5 named "
          .. module.name
          .. "_test, ets/test/List.test.ets, ets/testrunner/)",
      }
    )
  end
  local how, problem = signing.path_for(info, args.product)
  if not how then
    signing.fail(problem)
  end
  return {
    info = info,
    bundle = info.bundle_name,
    module = module,
    test_module = module.name .. "_test",
    runner = args.runner or runner_of(module.src_path),
    product = args.product,
    signing = how,
  }
end

local function hvigorw(argv, timeout_ms)
  local run = rein.proc.run("hvigorw", argv, { timeout_ms = timeout_ms })
  local build = hvigor.parse_build(run.stdout, run.stderr, run.code)
  if not build.ok then
    hvigor.refuse_failed(build, run, "hvigorw " .. table.concat(argv, " "))
  end
  return build
end

-- Builds the test HAP alone
-- (`hvigorw --mode module -p module=<m>@ohosTest -p product=<p> assembleHap`, §1.5).
function M.build_test(plan, timeout_ms)
  hvigorw({
    "--mode",
    "module",
    "-p",
    "module=" .. plan.module.name .. "@ohosTest",
    "-p",
    "product=" .. plan.product,
    "assembleHap",
    "--no-daemon",
  }, timeout_ms)
end

-- Builds every package of the app, then the test HAP.
function M.build(plan, timeout_ms)
  local app =
    { "--mode", "module", "-p", "product=" .. plan.product, "-p", "buildMode=debug", "assembleHap" }
  for _, module in ipairs(plan.info.modules) do
    if module.type == "shared" then
      app[#app + 1] = "assembleHsp"
      break
    end
  end
  app[#app + 1] = "--no-daemon"
  hvigorw(app, timeout_ms)
  M.build_test(plan, timeout_ms)
end

-- The package of module `module` in `<src>/build/<product>/outputs/<target>/`: the signed one
-- when `signed`. `test` picks the ohosTest target's, else any other target's.
local function package_of(plan, module, test, signed)
  local outputs = module.src_path .. "/build/" .. plan.product .. "/outputs/"
  if not rein.fs.exists(outputs) then
    return nil
  end
  for _, entry in ipairs(rein.fs.list(outputs, { depth = 2 }).entries) do
    local target, file = entry.path:match("/outputs/([^/]+)/([^/]+)$")
    local is_signed = file and file:match("%-signed%.h[as]p$") ~= nil
    local is_package = file and (file:match("%.hap$") or file:match("%.hsp$"))
    if
      entry.kind == "file"
      and is_package
      and (target == "ohosTest") == test
      and is_signed == signed
    then
      return entry.path
    end
  end
  return nil
end

local function signed_package(plan, module, test)
  local what = module.name .. (test and " (its test HAP)" or "")
  if plan.signing.path == "hvigor" then
    local signed = package_of(plan, module, test, true)
    if not signed then
      rein.error(
        "SIGN_FAILED",
        "hvigor was to sign module " .. what .. " but made no -signed package",
        {
          module = module.name,
          remedy = "read the build's SignHap output; check the signing material in build-profile.json5",
        }
      )
    end
    return signed
  end
  local unsigned = package_of(plan, module, test, false)
  if not unsigned then
    rein.error("BUILD_FAILED", "the build made no unsigned package of module " .. what, {
      module = module.name,
      remedy = "check the module's build output",
    })
  end
  return signer.sign_app({ hap = unsigned, signing_config = plan.signing.signing_config }).hap
end

-- The signed test HAP (built by build_test).
function M.sign_test(plan)
  return signed_package(plan, plan.module, true)
end

-- Every signed package of the app, then the test HAP.
function M.sign(plan)
  local packages = rein.json.array({})
  for _, name in ipairs(project.package_modules(plan.info)) do
    packages[#packages + 1] = signed_package(plan, project.module_named(plan.info, name), false)
  end
  packages[#packages + 1] = signed_package(plan, plan.module, true)
  return packages
end

-- Installs `packages` on `target` in one transaction: copied to a folder of rein's own that
-- hdc sends whole, one `bm install -p <folder>` on the device (as app_install does).
function M.install(target, packages)
  readiness.ensure(target)
  local staged = rein.fs.stage_packages(packages)
  local text = device.run_checked(target, { "install", "-r", staged.dir })
  local result = hdc.parse_install(text)
  if not result.ok then
    device.fail("INSTALL_FAILED", "install", result, text)
  end
  return staged.dir
end

-- `aa test`'s words after `hdc shell`: the project's bundle and test module, the runner, the
-- caller's filters as Hypium's `-s` keys, `-w` for the whole run.
function M.command(plan, args, dry_run)
  local argv =
    { "aa", "test", "-b", plan.bundle, "-m", plan.test_module, "-s", "unittest", plan.runner }
  local function key(name, value)
    if value ~= nil then
      argv[#argv + 1] = "-s"
      argv[#argv + 1] = name
      argv[#argv + 1] = tostring(value)
    end
  end
  key("class", args.class)
  key("notClass", args.not_class)
  key("itName", args.it_name)
  key("level", args.level)
  key("size", args.size)
  key("testType", args.test_type)
  key("timeout", args.timeout_ms)
  if dry_run then
    key("dryRun", "true")
  end
  if args.deadline_s and not dry_run then
    argv[#argv + 1] = "-w"
    argv[#argv + 1] = tostring(args.deadline_s)
  end
  return argv
end

local function shell(target, words, timeout_ms)
  local argv = { "shell" }
  for _, w in ipairs(words) do
    argv[#argv + 1] = w
  end
  return device.run_checked(target, argv, { timeout_ms = timeout_ms })
end

-- For a recipe that proved a launch (sign-install-launch, device-matrix): with `args.device_tests`,
-- the test HAP built and signed, to install beside the app's `packages` (the sign step's); nil
-- when the tests were not asked for.
function M.test_package_after_launch(args)
  if not args.device_tests then
    return nil
  end
  M.filters_of(args.test_filters)
  local plan = M.plan(args)
  M.build_test(plan, args.build_timeout_ms)
  return M.sign_test(plan)
end

-- Then on one device (`target`: `{ key, server }` as device.pick gives it): the app's packages
-- and the test HAP installed together, the tests run. Returns the result; TESTS_FAILED as run.
function M.run_after_launch(args, target, packages, test_hap)
  local all = rein.json.array({})
  for _, path in ipairs(packages) do
    all[#all + 1] = path
  end
  all[#all + 1] = test_hap
  M.install(target, all)
  local run_args = M.filters_of(args.test_filters)
  run_args.list_first = true
  for _, key in ipairs({ "module", "product", "runner", "build_timeout_ms" }) do
    run_args[key] = args[key]
  end
  return M.run(M.plan(run_args), target, run_args)
end

-- The filters a recipe passes on (one object parameter, `test_filters`, keeps tools/list
-- small): device_test's filter arguments, each checked as device_test checks it; INVALID_ARGS
-- for a key that is not one.
function M.filters_of(object)
  local known = M.filter_params()
  local out = {}
  for key, value in pairs(object or {}) do
    if not known[key] then
      local names = {}
      for name in pairs(known) do
        names[#names + 1] = name
      end
      table.sort(names)
      rein.error(
        "INVALID_ARGS",
        "test_filters has no key "
          .. tostring(key)
          .. " (keys: "
          .. table.concat(names, ", ")
          .. ")",
        { key = key }
      )
    end
    out[key] = value
  end
  return out
end

-- The object parameter that carries the filters.
M.FILTERS_PARAM = {
  type = "object",
  optional = true,
  description = "device_test's filters (class, level, …)",
}

-- The parameters of a recipe that can run the tests after its launch, added to `params`.
function M.after_launch_params(params)
  params.test_filters = M.FILTERS_PARAM
  params.device_tests = {
    type = "boolean",
    default = false,
  }
  return params
end

local FAILING = { failed = true, error = true, ["timed out"] = true, ["not run"] = true }

-- The result as an agent reads it: counts first, then each test that did not pass with its
-- message, location and mapped stack, then every test (without stacks).
function M.compact(parsed)
  local failures, tests = rein.json.array({}), rein.json.array({})
  for _, case in ipairs(parsed.tests) do
    tests[#tests + 1] = {
      suite = case.suite,
      test = case.test,
      status = case.status,
      time_ms = case.time_ms,
      skip_reason = case.skip_reason,
    }
    if FAILING[case.status] then
      -- Each frame through the build's source map to its .ets line, or why not.
      local source = frames.map(case.stack)
      failures[#failures + 1] = {
        suite = case.suite,
        test = case.test,
        status = case.status,
        message = case.message,
        expect_message = case.expect_message,
        location = frames.locate(source),
        stack = case.stack,
        source = source,
      }
    end
  end
  return {
    ok = parsed.ok,
    verdict = parsed.verdict,
    message = parsed.message,
    counts = parsed.counts,
    failures = failures,
    ending = parsed.ending,
    summary = parsed.summary,
    problems = parsed.problems,
    tests = tests,
  }
end

-- One line per failing test, for the error's message: `Suite#test (status) at file:line:col: message`.
local function failure_lines(result)
  local lines = {}
  for i, f in ipairs(result.failures) do
    if i > 10 then
      lines[#lines + 1] = ("… and %d more (details.failures)"):format(#result.failures - 10)
      break
    end
    local at = f.location
        and (" at " .. f.location.file .. ":" .. f.location.line .. ":" .. f.location.column)
      or ""
    lines[#lines + 1] = ("%s#%s (%s)%s: %s"):format(f.suite, f.test, f.status, at, f.message or "")
  end
  return table.concat(lines, "\n")
end

-- Runs the tests on `target` (installed already): a dry run first when `list_first` (so that a
-- run cut short names the tests that never ran), then the run; with a crash, the crash record
-- crash_scan would find. Returns the compact result; TESTS_FAILED with it as details unless
-- every test passed.
function M.run(plan, target, args)
  local expected
  if args.list_first then
    expected = hypium.parse_dry_run((shell(target, M.command(plan, args, true))))
  end
  local now = clock.parse_date((shell(target, { "date", clock.DATE_FORMAT })))
  local words = M.command(plan, args, false)
  local timeout_ms = args.deadline_s and (args.deadline_s + 60) * 1000 or nil
  local text = shell(target, words, timeout_ms)
  local result = M.compact(hypium.parse(text, expected))
  result.command = "hdc shell " .. table.concat(words, " ")
  result.listed_first = expected ~= nil
  if result.ending.kind == "app_died" and now then
    local scan = crashes.scan(target, plan.bundle, now)
    if scan.logs[1] then
      result.crash = crashes.log_evidence(scan.logs[1])
    end
  end
  if not result.ok then
    local head = result.message
    local lines = failure_lines(result)
    rein.error("TESTS_FAILED", head .. (lines ~= "" and ("\n" .. lines) or ""), result)
  end
  return result
end

return M
