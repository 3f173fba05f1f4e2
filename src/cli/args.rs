//! The command line, documented once here and rendered by clap into `--help`.

use std::path::PathBuf;

use clap::{Parser, Subcommand};

#[derive(Debug, Parser)]
#[command(
    name = "rein",
    version,
    about = "Drive the HarmonyOS/OpenHarmony toolchain safely: small edits, proven results, nothing outside the workspace without a human's yes."
)]
pub struct Cli {
    /// The project to work on (default: the current directory). Relative paths in tool
    /// arguments start here.
    #[arg(long, global = true, value_name = "DIR")]
    pub workspace: Option<PathBuf>,

    /// rein's home: config, approvals, packs (default: $REIN_HOME, else ~/.rein).
    #[arg(long, global = true, value_name = "DIR")]
    pub home: Option<PathBuf>,

    /// Print exactly one JSON object on stdout: {"ok":true,"result":...} or
    /// {"ok":false,"error":{"code","message","details"}}.
    #[arg(long, global = true)]
    pub json: bool,

    /// Answer yes to what the policy asks about (installs, launches, outside paths). Never
    /// allows what the policy denies, and never a write to rein's home.
    #[arg(long, global = true)]
    pub yes: bool,

    /// More logging on stderr (-v info, -vv debug, -vvv trace).
    #[arg(short, long, global = true, action = clap::ArgAction::Count)]
    pub verbose: u8,

    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// List tools: name, origin (built-in or project) and description.
    Tools,
    /// Call one tool with a JSON object of arguments ("-" reads them from stdin).
    Call {
        /// The tool's name, as `rein tools` lists it.
        tool: String,
        /// Arguments as a JSON object, or "-" to read them from stdin (default: {}).
        args: Option<String>,
    },
    /// Run a recipe with a JSON object of args ("-" reads them from stdin).
    Recipe {
        /// The recipe's name, as `rein tools` lists it under recipes.
        name: String,
        /// Arguments as a JSON object, or "-" to read them from stdin (default: {}).
        args: Option<String>,
        /// Show the steps and the approvals they may need; run nothing.
        #[arg(long)]
        explain: bool,
        /// Start at this step, reusing the outputs the last run recorded for the steps before.
        #[arg(long, value_name = "STEP")]
        from: Option<String>,
    },
    /// Past recipe runs and their reports.
    Runs {
        #[command(subcommand)]
        action: RunsAction,
    },
    /// Restore every file a run changed; refused if one changed since, unless --force.
    Undo {
        /// The run, as `rein runs list` shows it (or `last`).
        run_id: String,
        /// Restore even files changed since the run (their later changes are lost).
        #[arg(long)]
        force: bool,
    },
    /// Load and validate every tool; exit 1 if any is broken.
    Check,
    /// Watch tools/, recipes/ and prelude/ and reload on change (checks must pass first);
    /// prints each reload. Stops on Ctrl-C.
    Watch,
    /// Packs of tools, recipes and prelude modules shared across teams.
    Pack {
        #[command(subcommand)]
        action: PackAction,
    },
    /// Run the checks tools declare (each in a scratch workspace); exit 1 if one fails.
    Test {
        /// Only this tool's checks.
        name: Option<String>,
    },
    /// Serve every tool, and every recipe as recipe_<name>, over MCP on stdin/stdout (logs on
    /// stderr). A person approves through the client (MCP elicitation) when it offers that;
    /// otherwise the call fails with APPROVAL_REQUIRED. --yes is NOT honoured here. Tools are
    /// hot-reloaded (checks first) and existing files must be read before they are changed.
    Serve {
        /// Let the client change files it has not read in this session.
        #[arg(long)]
        no_read_before_edit: bool,
    },
    /// What toolchain was found, where, which version; what is missing and how to fix it.
    Doctor,
    /// List the programs rein keeps running for this workspace (a started emulator): id,
    /// state (running or ended), command, since, and the end of its log.
    Ps,
    /// End a kept program: its own stop first (`emulator -stop <name>`, asked about as that
    /// command is), then its process group after a bounded wait.
    Stop {
        /// The kept program's id, as `rein ps` shows it.
        id: String,
    },
    /// Manage the rules a person made (in home approvals.toml).
    Approvals {
        #[command(subcommand)]
        action: ApprovalsAction,
    },
    /// Write lua-language-server stubs of the Lua API (rein.*, the tool and recipe tables,
    /// ctx, the harmony.* modules) and selene's rein.yml into DIR, and point the workspace's
    /// .luarc.json at them.
    Types {
        /// Where to write them (default: .rein/types in the workspace).
        #[arg(value_name = "DIR")]
        dir: Option<PathBuf>,
        #[arg(long = "out", value_name = "DIR", hide = true, conflicts_with = "dir")]
        out: Option<PathBuf>,
    },
    /// Set up the workspace for your own tools: tools/ with an example tool and its check,
    /// recipes/, a commented rein.toml, the editor stubs and .luarc.json. Keeps what exists.
    Init,
    /// Scaffold a tool, a recipe or a pack that passes `rein check` and `rein test` as
    /// generated.
    New {
        #[command(subcommand)]
        what: NewWhat,
    },
    /// Connect an MCP client to this workspace: write rein's entry into the client's own
    /// project file, merged into what is there.
    Mcp {
        #[command(subcommand)]
        action: McpAction,
    },
    /// Print a shell completion script to stdout, e.g. `rein completions bash >
    /// ~/.local/share/bash-completion/completions/rein`.
    Completions {
        /// The shell to complete for.
        shell: clap_complete::Shell,
    },
    /// Print rein's man page (roff) to stdout, e.g. `rein man | man -l -`; `rein man pack add`
    /// prints the page of that command (rein-pack-add(1)).
    Man {
        /// The command whose page to print (default: rein's own).
        command: Vec<String>,
    },
}

#[derive(Debug, Subcommand)]
pub enum NewWhat {
    /// tools/NAME.lua in the workspace.
    Tool {
        /// Lowercase letters, digits and _, starting with a letter.
        name: String,
    },
    /// recipes/NAME.lua in the workspace.
    Recipe {
        /// Lowercase letters, digits, - and _, starting with a letter.
        name: String,
    },
    /// A folder NAME/ in the current directory with pack.toml, an example tool and a README.
    Pack {
        /// kebab-case: lowercase letters, digits and -.
        name: String,
    },
    /// A HarmonyOS project (DevEco's Empty Ability) in the workspace or --path, written by the
    /// project_create tool: never over an existing project.
    App(NewApp),
}

/// `rein new app`'s arguments: project_create's.
#[derive(Debug, clap::Args)]
pub struct NewApp {
    /// Reverse domain name, e.g. com.example.hello.
    #[arg(long)]
    pub bundle_name: String,
    /// The name people see.
    #[arg(long)]
    pub app_name: String,
    /// Folder of the new project, inside the workspace (default: the workspace).
    #[arg(long, default_value = ".")]
    pub path: String,
    /// HarmonyOS or OpenHarmony.
    #[arg(long, default_value = "HarmonyOS")]
    pub runtime_os: String,
    /// "6.0.0(20)" for HarmonyOS, 20 for OpenHarmony (default 6.0.0(20) / 20).
    #[arg(long)]
    pub compatible_sdk: Option<String>,
    /// Default: the compatible level.
    #[arg(long)]
    pub target_sdk: Option<String>,
    /// Written only when given.
    #[arg(long)]
    pub compile_sdk: Option<String>,
}

#[derive(Debug, Subcommand)]
pub enum McpAction {
    /// Write (or with --print show) the entry that runs `rein serve` on this workspace into
    /// the client's project file: .mcp.json, .codex/config.toml, .cursor/mcp.json or
    /// .vscode/mcp.json. Other servers stay; an entry named rein that differs is refused.
    Add {
        /// The MCP client.
        #[arg(value_enum)]
        client: McpClientArg,
        /// Print the entry and where it goes; write nothing.
        #[arg(long)]
        print: bool,
    },
}

/// The clients `rein mcp add` knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum McpClientArg {
    // Plain comments, as ReportFormat's: `.mcp.json` at the project root.
    ClaudeCode,
    // `.codex/config.toml` (a trusted project's).
    Codex,
    // `.cursor/mcp.json`.
    Cursor,
    // `.vscode/mcp.json`.
    Vscode,
}

impl McpClientArg {
    pub fn client(self) -> rein::authoring::McpClient {
        use rein::authoring::McpClient;
        match self {
            McpClientArg::ClaudeCode => McpClient::ClaudeCode,
            McpClientArg::Codex => McpClient::Codex,
            McpClientArg::Cursor => McpClient::Cursor,
            McpClientArg::Vscode => McpClient::VsCode,
        }
    }
}

#[derive(Debug, Subcommand)]
pub enum ApprovalsAction {
    /// List the rules, numbered.
    List,
    /// Add a rule: a program and argument globs (`hdc install -r '*.hap'`), or --path GLOB
    /// with --access. A person must confirm it at the terminal.
    Grant {
        /// Path glob the rule allows (instead of a program).
        #[arg(long, value_name = "GLOB")]
        path: Option<String>,
        /// read or write (with --path).
        #[arg(long, value_name = "ACCESS")]
        access: Option<String>,
        /// The program, then one glob per argument (matched as a prefix of the command line).
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        command: Vec<String>,
    },
    /// Remove rule N (as numbered by `list`).
    Revoke {
        /// The rule's number, as `rein approvals list` shows it.
        number: usize,
    },
    /// Review the project's rein.toml and rein.lock changes that wait for a person, and approve
    /// them (at a terminal). Until then rein serves the versions a person approved.
    Policy,
}

/// How `rein runs show` prints a report.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ReportFormat {
    // Plain comments: documented variants would turn `runs show --help` into clap's long
    // layout, where arguments lose their one-line help.
    // report.md, for people at a terminal.
    Md,
    // report.json.
    Json,
    // report.html: one self-contained page with the screenshot.
    Html,
    // JUnit XML: a testsuite for the run, a testcase per step.
    Junit,
}

#[derive(Debug, Subcommand)]
pub enum RunsAction {
    /// Every recorded run, oldest first.
    List,
    /// One run's report: report.md (the default), its JSON, the page report.html, or JUnit
    /// XML for CI (`rein runs show last --format junit > rein-junit.xml`).
    Show {
        /// The run, as `rein runs list` shows it, or `last` for the latest.
        run_id: String,
        /// md (the default; with --json, json), json, html or junit.
        #[arg(long, value_enum)]
        format: Option<ReportFormat>,
    },
    /// Remove the saved copies (pre-images) no run inside the undo window needs. Done after
    /// every run with the defaults; runs outside the window keep their reports but can no
    /// longer be undone.
    Prune {
        /// Keep what the last N runs need.
        #[arg(long, default_value_t = 20)]
        keep_runs: usize,
        /// Keep what runs started in the last D days need (and every copy made in them).
        #[arg(long, default_value_t = 14)]
        keep_days: u64,
    },
}

#[derive(Debug, Subcommand)]
pub enum PackAction {
    /// Install a pack from a folder or a git repository (https://, ssh://, user@host:path,
    /// or a local clone; `@rev` for a tag, branch or commit) and pin it in rein.lock. Shows
    /// its permissions; a person confirms at the terminal.
    Add {
        /// A folder with a pack.toml, or a git repository (https://, ssh://, user@host:path
        /// or a local clone), optionally pinned as SOURCE@REV.
        source: String,
    },
    /// Install exactly the commits and hashes rein.lock pins into this rein home (a
    /// teammate's first step). Never moves the lock; a person confirms at the terminal.
    Sync,
    /// Fetch packs again from their recorded source and move their rein.lock entries; shows
    /// what changed in their permissions first.
    Update {
        /// Only this pack (default: every pack in rein.lock).
        name: Option<String>,
    },
    /// Stop using a pack in this project.
    Remove {
        /// The pack's name, as `rein pack list` shows it.
        name: String,
    },
    /// The packs in rein.lock.
    List,
    /// Check every installed pack against rein.lock.
    Verify,
}
