//! The page host seen through discovery ([`crate::harness::discovery_cases`]): which files
//! run as pages, by name and by a user's rule.
use crate::harness::discovery_cases::{Case, Config, Expect, Rule, Run};

/// The run's configuration: a browser that exists, and a rule whose files run as pages.
const PAGES: Config = Config {
    browser: Some("/bin/sh"),
    runners: &[Rule {
        glob: "web/*.spec.mjs",
        command: &["ignored"],
        page: true,
    }],
    ..Config::NONE
};

pub(crate) static PROJECTS: &[Case] = &[Case {
    why: "issue 18: browser files run in Chromium, `.both` files twice, `.deno` not at all in a walk, and a user's rule can say `runtime = \"chromium\"`",
    files: &[
        ("test/a.browser.js", ""),
        ("test/b.both.mjs", ""),
        ("test/c.test.js", ""),
        ("test/test.chromium.ts", ""),
        ("test/test.deno.ts", ""),
        ("web/page.spec.mjs", ""),
    ],
    runs: &[
        Run {
            why: "by name and by rule",
            args: &["test", "web"],
            config: PAGES,
            expect: &[
                Expect::Files(&[
                    "test/a.browser.js",
                    "test/b.both.mjs (node)",
                    "test/b.both.mjs (chromium)",
                    "test/c.test.js",
                    "test/test.chromium.ts",
                    "web/page.spec.mjs",
                ]),
                Expect::Pages(&[
                    "test/a.browser.js",
                    "test/b.both.mjs (chromium)",
                    "test/test.chromium.ts",
                    "web/page.spec.mjs",
                ]),
                // A page's command: the browser's, the file last.
                Expect::LastWords(&[
                    ("test/a.browser.js", "test/a.browser.js"),
                    ("test/b.both.mjs (chromium)", "test/b.both.mjs"),
                    ("test/test.chromium.ts", "test/test.chromium.ts"),
                    ("web/page.spec.mjs", "web/page.spec.mjs"),
                ]),
                Expect::Programs(&[
                    ("test/a.browser.js", "/bin/sh"),
                    ("test/b.both.mjs (node)", "node"),
                    ("test/b.both.mjs (chromium)", "/bin/sh"),
                    ("test/c.test.js", "node"),
                    ("test/test.chromium.ts", "/bin/sh"),
                    ("web/page.spec.mjs", "/bin/sh"),
                ]),
            ],
            ..Run::BARE
        },
        Run {
            why: "no browser where the configuration says",
            args: &["test/a.browser.js"],
            config: Config {
                browser: Some("/no/such/chromium"),
                ..Config::NONE
            },
            expect: &[Expect::Missing(&[
                "/no/such/chromium",
                "apt-get install chromium",
            ])],
            ..Run::BARE
        },
        Run {
            why: "--exec runs the command",
            args: &["test/a.browser.js"],
            config: PAGES,
            exec: Some("cat"),
            expect: &[Expect::Pages(&[])],
            ..Run::BARE
        },
    ],
}];
