//! Command-line definitions (clap) and dispatch; the work lives in the library modules.
use clap::{Parser as ClapParser, Subcommand, ValueEnum};
use std::path::PathBuf;

#[derive(ClapParser, Debug)]
#[command(
    name = "tapline",
    version,
    about = "Run tests of any language and report their TAP."
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Parse a TAP stream from a file or stdin (`node --test | tapline parse`).
    Parse(ParseArgs),
}

#[derive(clap::Args, Debug)]
pub struct ParseArgs {
    /// The stream to read; `-` or nothing for stdin.
    pub file: Option<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    pub format: Format,
    /// When to use colour.
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto)]
    pub color: ColorChoice,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Human,
    Jsonl,
    Summary,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum ColorChoice {
    Auto,
    Always,
    Never,
}
