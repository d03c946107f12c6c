//! time_vs_threads.svg: engine time (log scale) against the number of
//! threads, one curve per (mode, m), in the style of Fig. 1 of the precise
//! thread-modular paper. The first point of a curve that timed out or went
//! over its budget is drawn at the per-run timeout (a hollow ring on a
//! dashed grey line, joined to the curve by a dashed segment): the wall the
//! exhaustive search runs into. Skipped and failed points are not plotted;
//! report.md lists them.

use super::error::BenchError;
use super::format::fmt_secs;
use super::harness::Status;
use super::record::Record;
use super::series::series;
use crate::engine::Mode;
use plotters::prelude::*;
use std::path::Path;

const WIDTH: u32 = 1000;
const HEIGHT: u32 = 620;
const LEGEND_WIDTH: u32 = 290;

/// Colours: a hue per mode (red standard, green thread-modular, blue
/// cartesian-exc), from light to dark along its curves (m = 1 .. 9).
fn colour(mode: Mode, k: usize) -> RGBColor {
    const STANDARD: [RGBColor; 5] = [
        RGBColor(252, 146, 114),
        RGBColor(251, 106, 74),
        RGBColor(239, 59, 44),
        RGBColor(203, 24, 29),
        RGBColor(153, 0, 13),
    ];
    const THREAD_MODULAR: [RGBColor; 5] = [
        RGBColor(161, 217, 155),
        RGBColor(116, 196, 118),
        RGBColor(65, 171, 93),
        RGBColor(35, 139, 69),
        RGBColor(0, 90, 50),
    ];
    const CARTESIAN: [RGBColor; 5] = [
        RGBColor(107, 174, 214),
        RGBColor(66, 146, 198),
        RGBColor(33, 113, 181),
        RGBColor(8, 81, 156),
        RGBColor(8, 48, 107),
    ];
    const REFINE: [RGBColor; 5] = [
        RGBColor(188, 189, 220),
        RGBColor(158, 154, 200),
        RGBColor(128, 125, 186),
        RGBColor(106, 81, 163),
        RGBColor(74, 20, 134),
    ];
    let shades = match mode {
        Mode::Standard => &STANDARD,
        Mode::ThreadModular => &THREAD_MODULAR,
        Mode::CartesianExc => &CARTESIAN,
        Mode::Refine => &REFINE,
    };
    shades[k % shades.len()]
}

/// The marker of a point drawn at the timeout: a hollow ring.
const OVER_RADIUS: i32 = 7;

/// Writes the SVG. With no plottable point at all, the axes still show.
/// When some point timed out or went over its budget, a dashed grey line
/// marks the per-run timeout `timeout_s` and such points sit on it.
pub(crate) fn time_vs_threads(
    records: &[Record],
    title: &str,
    timeout_s: f64,
    path: &Path,
) -> Result<(), BenchError> {
    let curves = series(records);
    let over: Vec<(i64, f64)> = curves
        .iter()
        .filter_map(|s| s.over.map(|n| (n, timeout_s)))
        .collect();
    let any_budget = records.iter().any(|r| r.status == Status::Budget);
    let timeout_s = (!over.is_empty()).then_some(timeout_s);
    let all: Vec<(i64, f64)> = curves
        .iter()
        .flat_map(|s| s.points.clone())
        .chain(over.iter().copied())
        .collect();
    let (x0, x1) = bounds(all.iter().map(|p| p.0 as f64)).unwrap_or((0.0, 1.0));
    let pad = ((x1 - x0) * 0.04).ceil().max(1.0) as i64;
    let (x0, x1) = ((x0 as i64 - pad).max(0), x1 as i64 + pad);
    let x_ticks = (x1 - x0 + 1).min(12) as usize;
    let (y0, y1) = bounds(all.iter().map(|p| p.1).chain(timeout_s)).unwrap_or((1e-4, 1.0));
    let (y0, y1) = (y0 / 2.0, y1 * 2.0);
    let err = |e: &dyn std::fmt::Display| BenchError::Draw {
        path: path.to_path_buf(),
        message: e.to_string(),
    };

    let root = SVGBackend::new(path, (WIDTH, HEIGHT)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| err(&e))?;
    let (left, right) = root.split_horizontally(WIDTH - LEGEND_WIDTH);
    let mut chart = ChartBuilder::on(&left)
        .caption(title, ("sans-serif", 20))
        .margin(12)
        .x_label_area_size(45)
        .y_label_area_size(75)
        .build_cartesian_2d(x0..x1, (y0..y1).log_scale())
        .map_err(|e| err(&e))?;
    chart
        .configure_mesh()
        .x_desc("threads n")
        .y_desc("engine seconds (log scale)")
        .x_labels(x_ticks)
        .y_label_formatter(&|y| fmt_secs(*y))
        .label_style(("sans-serif", 13))
        .axis_desc_style(("sans-serif", 15))
        .light_line_style(WHITE.mix(0.0))
        .draw()
        .map_err(|e| err(&e))?;

    let mut legend_y = 52;
    let legend_entries = curves.len() + usize::from(timeout_s.is_some());
    let legend_step = ((HEIGHT as i32 - 60) / legend_entries.max(1) as i32).clamp(8, 22);
    if let Some(t) = timeout_s {
        let grey = ShapeStyle::from(&RGBColor(90, 90, 90)).stroke_width(1);
        chart
            .draw_series(DashedLineSeries::new([(x0, t), (x1, t)], 6, 4, grey))
            .map_err(|e| err(&e))?;
        chart
            .plotting_area()
            .draw(&Text::new(
                format!("per-run timeout ({} s)", fmt_secs(t)),
                // Right of the middle: the rings of the exhaustive search
                // sit on the line at small n.
                (x0 + (x1 - x0) * 3 / 5, t * 1.25),
                ("sans-serif", 13),
            ))
            .map_err(|e| err(&e))?;
    }
    right
        .draw(&Text::new("curves (mode, m)", (10, 18), ("sans-serif", 15)))
        .map_err(|e| err(&e))?;
    let mut shade_of_mode: Vec<(Mode, usize)> = Vec::new();
    for s in &curves {
        let k = match shade_of_mode.iter_mut().find(|(m, _)| *m == s.key.mode) {
            Some((_, k)) => {
                *k += 1;
                *k
            }
            None => {
                shade_of_mode.push((s.key.mode, 0));
                0
            }
        };
        let color = colour(s.key.mode, k);
        let line = ShapeStyle::from(&color).stroke_width(match s.key.mode {
            Mode::Standard => 3,
            _ => 2,
        });
        chart
            .draw_series(LineSeries::new(s.points.iter().copied(), line))
            .map_err(|e| err(&e))?;
        if let (Some(n), Some(t)) = (s.over, timeout_s) {
            // From the last point that finished before it, dashed.
            if let Some(&last) = s.points.iter().filter(|p| p.0 < n).max_by_key(|p| p.0) {
                chart
                    .draw_series(DashedLineSeries::new(
                        [last, (n, t)],
                        5,
                        4,
                        ShapeStyle::from(&color).stroke_width(1),
                    ))
                    .map_err(|e| err(&e))?;
            }
            chart
                .draw_series(std::iter::once(Circle::new(
                    (n, t),
                    OVER_RADIUS,
                    color.stroke_width(2),
                )))
                .map_err(|e| err(&e))?;
        }
        let pts = s.points.iter().copied();
        match s.key.mode {
            Mode::CartesianExc => chart
                .draw_series(pts.map(|p| Circle::new(p, 4, color.filled())))
                .map(|_| ()),
            Mode::Refine => chart
                .draw_series(pts.map(|p| Circle::new(p, 4, color.stroke_width(2))))
                .map(|_| ()),
            Mode::ThreadModular => chart
                .draw_series(pts.map(|p| Cross::new(p, 5, color.stroke_width(2))))
                .map(|_| ()),
            Mode::Standard => chart
                .draw_series(pts.map(|p| TriangleMarker::new(p, 6, color.filled())))
                .map(|_| ()),
        }
        .map_err(|e| err(&e))?;
        right
            .draw(&PathElement::new(
                vec![(10, legend_y), (40, legend_y)],
                line,
            ))
            .map_err(|e| err(&e))?;
        let at = (25, legend_y);
        match s.key.mode {
            Mode::CartesianExc => right.draw(&Circle::new(at, 4, color.filled())),
            Mode::Refine => right.draw(&Circle::new(at, 4, color.stroke_width(2))),
            Mode::ThreadModular => right.draw(&Cross::new(at, 5, color.stroke_width(2))),
            Mode::Standard => right.draw(&TriangleMarker::new(at, 6, color.filled())),
        }
        .map_err(|e| err(&e))?;
        right
            .draw(&Text::new(
                s.label.clone(),
                (48, legend_y - 7),
                ("sans-serif", 13),
            ))
            .map_err(|e| err(&e))?;
        legend_y += legend_step;
    }
    if timeout_s.is_some() {
        let grey = RGBColor(90, 90, 90);
        right
            .draw(&Circle::new(
                (25, legend_y),
                OVER_RADIUS,
                grey.stroke_width(2),
            ))
            .map_err(|e| err(&e))?;
        let what = if any_budget {
            "timeout or over budget (at the timeout)"
        } else {
            "timeout (drawn at the per-run timeout)"
        };
        right
            .draw(&Text::new(what, (48, legend_y - 7), ("sans-serif", 13)))
            .map_err(|e| err(&e))?;
    }
    root.present().map_err(|e| err(&e))?;
    Ok(())
}

fn bounds(values: impl Iterator<Item = f64>) -> Option<(f64, f64)> {
    values.fold(None, |acc, v| match acc {
        None => Some((v, v)),
        Some((lo, hi)) => Some((lo.min(v), hi.max(v))),
    })
}
