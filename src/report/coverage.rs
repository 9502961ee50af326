//! The run's coverage as it arrives ([`RunEvent::Coverage`]), summed for what comes after the
//! run: the gate, the record `tapline coverage who` reads.
use crate::coverage::RunCoverage;
use crate::event::run::RunEvent;
use crate::event::sink::RunSink;
use std::io;

/// Sums the coverage of the latest run it saw.
#[derive(Debug, Default)]
pub struct CoverageTally {
    pub coverage: RunCoverage,
}

impl RunSink for CoverageTally {
    fn on(&mut self, ev: &RunEvent) -> io::Result<()> {
        match ev {
            RunEvent::RunStarted { .. } => self.coverage = RunCoverage::default(),
            RunEvent::Coverage { coverage, .. } => self.coverage.add(coverage),
            _ => {}
        }
        Ok(())
    }
}
