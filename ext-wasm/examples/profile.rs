//! Times the engine's stages on a saved engine input (a profiling aid, not a test):
//! `cargo run --release -p webext-mcp-engine --example profile -- input.json [runs]`;
//! with `text` in place of the run count it prints the rendering instead.

use std::time::Instant;

use webext_mcp_engine::{Input, collapse, dom::Dom, render, tree};

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

#[allow(clippy::print_stdout)]
fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let path = args.next().ok_or("usage: profile <engine-input.json> [runs]")?;
    let runs = args.next();
    let json = std::fs::read_to_string(path)?;
    if runs.as_deref() == Some("text") {
        print!("{}", render(&Input::parse(&json)?)?.text);
        return Ok(());
    }
    let runs: usize = runs.map(|r| r.parse()).transpose()?.unwrap_or(21);
    let (mut parse, mut build, mut outline, mut coll, mut total) = (vec![], vec![], vec![], vec![], vec![]);
    let mut bytes = 0;
    for _ in 0..runs {
        let t = Instant::now();
        let input = Input::parse(&json)?;
        parse.push(t.elapsed().as_secs_f64() * 1e3);
        let t = Instant::now();
        let dom = Dom::build(&input.frames, 600);
        build.push(t.elapsed().as_secs_f64() * 1e3);
        let t = Instant::now();
        let mut lines = tree::outline(&dom, None, None);
        outline.push(t.elapsed().as_secs_f64() * 1e3);
        let t = Instant::now();
        collapse::collapse(&mut lines, &dom, false);
        coll.push(t.elapsed().as_secs_f64() * 1e3);
        let t = Instant::now();
        let out = render(&input)?;
        total.push(t.elapsed().as_secs_f64() * 1e3);
        bytes = out.text.len();
    }
    println!(
        "parse {:.2} ms, dom {:.2} ms, outline {:.2} ms, collapse {:.2} ms, render (all but parse) {:.2} ms, {} bytes",
        median(parse),
        median(build),
        median(outline),
        median(coll),
        median(total),
        bytes
    );
    Ok(())
}
