//! Strategy `control` (placeholder while it is built).
use crate::engine::error::CheckError;
use crate::engine::result::RunReport;
use crate::engine::CheckOptions;
use crate::program::Program;

pub(crate) fn run(
    _prog: &Program,
    _opts: &CheckOptions,
    _monotonic: bool,
) -> Result<RunReport, CheckError> {
    Err(CheckError::Unsupported(
        "--refine control is not built yet".into(),
    ))
}
