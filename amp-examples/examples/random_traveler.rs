//! C++ AMP's RandomTraveler sample: where a traveler taking random flights
//! from an airport is most likely to end up, estimated by Monte Carlo,
//! many journeys per work item and one histogram of final airports (see
//! `amp_examples::random_traveler`).
//!
//! ```text
//! cargo run --release -p amp-examples --example random_traveler -- [--airports N] [--flights F] [--walkers W] [--journeys J] [--accelerator NAME] [--runs K]
//! ```

use std::process::ExitCode;

use amp_examples::gallery::{Common, Table, announce, finish, is_slow, time};
use amp_examples::random_traveler::{Graph, distribution, walk, walk_cpu};
use clap::Parser;

/// Walks random journeys over a random graph of flights and checks the
/// counts against the same journeys in plain Rust.
#[derive(Parser)]
struct Args {
    /// Airports.
    #[arg(long, default_value_t = 500)]
    airports: usize,
    /// Flights per journey.
    #[arg(long, default_value_t = 20)]
    flights: u32,
    /// Work items (default 65536 on a GPU, 1024 elsewhere).
    #[arg(long)]
    walkers: Option<u32>,
    /// Journeys per work item.
    #[arg(long, default_value_t = 64)]
    journeys: u32,
    #[command(flatten)]
    common: Common,
}

fn main() -> ExitCode {
    let args = Args::parse();
    finish("random_traveler", run(&args))
}

fn run(args: &Args) -> amp_core::Result<Result<(), String>> {
    let view = args.common.view()?;
    let walkers = args
        .walkers
        .unwrap_or(if is_slow(&view) { 1024 } else { 65536 });
    let (flights, journeys) = (args.flights, args.journeys);
    let total = u64::from(walkers) * u64::from(journeys);
    announce(
        "random_traveler",
        &view,
        &format!(
            "{} airports, {total} journeys of {flights} flights",
            args.airports
        ),
    );
    let graph = Graph::random(args.airports, 8, 51);
    let (start, seed) = (0, 2012);
    let mut got = Vec::new();
    let secs = time(args.common.runs, || {
        got = walk(&view, &graph, start, flights, walkers, journeys, seed)?;
        Ok(())
    })?;
    let mut table = Table::default();
    table.row(
        format!("{total} journeys"),
        secs,
        format!(
            "{:.1} M flights/s",
            total as f64 * f64::from(flights) / secs / 1e6
        ),
    );
    table.print();
    let want = walk_cpu(&graph, start, flights, walkers, journeys, seed);
    if got != want {
        let differ = got.iter().zip(&want).filter(|(g, w)| g != w).count();
        return Ok(Err(format!("{differ} airports' counts differ")));
    }
    // The estimate against the exact distribution: within six standard
    // errors of the largest possible variance.
    let exact = distribution(&graph, start, flights);
    let mut order: Vec<usize> = (0..exact.len()).collect();
    order.sort_by(|&a, &b| got[b].cmp(&got[a]));
    println!("| airport | estimated | exact |");
    println!("|---|---|---|");
    for &a in order.iter().take(5) {
        println!(
            "| {a} | {:.5} | {:.5} |",
            f64::from(got[a]) / total as f64,
            exact[a]
        );
    }
    let worst = got
        .iter()
        .zip(&exact)
        .map(|(&c, &p)| (f64::from(c) / total as f64 - p).abs())
        .fold(0.0, f64::max);
    let bound = 3.0 / (total as f64).sqrt();
    Ok(if worst <= bound {
        Ok(())
    } else {
        Err(format!(
            "the estimate is {worst} from the exact distribution (more than {bound})"
        ))
    })
}
