//! report.json: the settings, the machine and every record.

use super::Bench;
use crate::bench::format::{round6, utc_date_time};
use crate::bench::harness::GRACE;
use crate::bench::record::Record;
use serde_json::{Value, json};

/// report.json.
pub(crate) fn to_json(b: &Bench) -> Value {
    json!({
        "format": "weft-bench/1",
        "command": b.command,
        "preset": b.preset,
        "started": utc_date_time(b.started_unix),
        "wall_time_s": round6(b.wall_s),
        "settings": {
            "repeat": b.repeat,
            "timeout_s": b.limits.timeout_s,
            "grace_s": GRACE.as_secs_f64(),
            "max_memory_mib": b.limits.max_memory_mib,
            "max_states": b.limits.max_states,
            "jobs": b.jobs,
            "jobs_note": "--jobs of the standard children (worker threads of its search); the abstract engines are sequential, so their records say 1",
            "time_source": "stats.time_s of each child `weft check` (engine time, model loading excluded)",
        },
        "machine": b.machine.to_json(),
        "records": b.records.iter().map(Record::to_json).collect::<Vec<_>>(),
    })
}
