//! DevEco 6's "Empty Ability" project (shared/HARMONY-VERIFY.md §5), kept as real files under
//! `templates/empty-ability/` (its README says where each comes from) and embedded here at
//! build time. `gitignore` is `.gitignore` in the project (a dotfile in the repo would be
//! skipped by the tools that package it).

/// A template file: its path in the new project, its bytes, and whether it holds placeholders.
pub struct Template {
    pub path: &'static str,
    pub bytes: &'static [u8],
    pub text: bool,
}

macro_rules! templates {
    ($($kind:ident $path:literal => $repo:literal),* $(,)?) => {
        &[$(Template {
            path: $path,
            bytes: include_bytes!(concat!(env!("CARGO_MANIFEST_DIR"), "/templates/empty-ability/", $repo)),
            text: templates!(@$kind),
        }),*]
    };
    (@text) => { true };
    (@binary) => { false };
}

pub const EMPTY_ABILITY: &[Template] = templates![
    text "AppScope/app.json5" => "AppScope/app.json5",
    text "AppScope/resources/base/element/string.json" => "AppScope/resources/base/element/string.json",
    text "AppScope/resources/base/media/layered_image.json" => "AppScope/resources/base/media/layered_image.json",
    binary "AppScope/resources/base/media/background.png" => "AppScope/resources/base/media/background.png",
    binary "AppScope/resources/base/media/foreground.png" => "AppScope/resources/base/media/foreground.png",
    text "build-profile.json5" => "build-profile.json5",
    text "hvigorfile.ts" => "hvigorfile.ts",
    text "oh-package.json5" => "oh-package.json5",
    text "hvigor/hvigor-config.json5" => "hvigor/hvigor-config.json5",
    text "code-linter.json5" => "code-linter.json5",
    text ".gitignore" => "gitignore",
    text "entry/.gitignore" => "entry/gitignore",
    text "entry/build-profile.json5" => "entry/build-profile.json5",
    text "entry/hvigorfile.ts" => "entry/hvigorfile.ts",
    text "entry/oh-package.json5" => "entry/oh-package.json5",
    text "entry/obfuscation-rules.txt" => "entry/obfuscation-rules.txt",
    text "entry/src/main/module.json5" => "entry/src/main/module.json5",
    text "entry/src/main/ets/entryability/EntryAbility.ets" => "entry/src/main/ets/entryability/EntryAbility.ets",
    text "entry/src/main/ets/entrybackupability/EntryBackupAbility.ets" => "entry/src/main/ets/entrybackupability/EntryBackupAbility.ets",
    text "entry/src/main/ets/pages/Index.ets" => "entry/src/main/ets/pages/Index.ets",
    text "entry/src/main/resources/base/element/string.json" => "entry/src/main/resources/base/element/string.json",
    text "entry/src/main/resources/base/element/color.json" => "entry/src/main/resources/base/element/color.json",
    text "entry/src/main/resources/base/element/float.json" => "entry/src/main/resources/base/element/float.json",
    text "entry/src/main/resources/base/media/layered_image.json" => "entry/src/main/resources/base/media/layered_image.json",
    binary "entry/src/main/resources/base/media/background.png" => "entry/src/main/resources/base/media/background.png",
    binary "entry/src/main/resources/base/media/foreground.png" => "entry/src/main/resources/base/media/foreground.png",
    binary "entry/src/main/resources/base/media/startIcon.png" => "entry/src/main/resources/base/media/startIcon.png",
    text "entry/src/main/resources/base/profile/main_pages.json" => "entry/src/main/resources/base/profile/main_pages.json",
    text "entry/src/main/resources/base/profile/backup_config.json" => "entry/src/main/resources/base/profile/backup_config.json",
    text "entry/src/main/resources/dark/element/color.json" => "entry/src/main/resources/dark/element/color.json",
    text "entry/src/mock/mock-config.json5" => "entry/src/mock/mock-config.json5",
    text "entry/src/ohosTest/module.json5" => "entry/src/ohosTest/module.json5",
    text "entry/src/ohosTest/ets/test/List.test.ets" => "entry/src/ohosTest/ets/test/List.test.ets",
    text "entry/src/ohosTest/ets/test/Ability.test.ets" => "entry/src/ohosTest/ets/test/Ability.test.ets",
    text "entry/src/test/List.test.ets" => "entry/src/test/List.test.ets",
    text "entry/src/test/LocalUnit.test.ets" => "entry/src/test/LocalUnit.test.ets",
];
