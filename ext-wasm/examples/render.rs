//! Renders an engine input file and prints the text: `cargo run --example render -- input.json`.
use std::io::Write;

fn main() -> std::process::ExitCode {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: render <engine-input.json>");
        return std::process::ExitCode::from(2);
    };
    let json = match std::fs::read_to_string(&path) {
        Ok(j) => j,
        Err(e) => {
            eprintln!("{path}: {e}");
            return std::process::ExitCode::FAILURE;
        }
    };
    let start = std::time::Instant::now();
    let input = webext_mcp_engine::Input::parse(&json);
    let parsed = start.elapsed();
    let result = input.and_then(|i| webext_mcp_engine::render(&i));
    let took = start.elapsed() - parsed;
    match result {
        Ok(out) => {
            eprintln!(
                "{} lines, {} refs, {} collapsed, {} bytes; parse {parsed:?}, render {took:?}",
                out.nodes,
                out.refs,
                out.collapsed,
                out.text.len()
            );
            let _ = std::io::stdout().write_all(out.text.as_bytes());
            std::process::ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("{}: {e}", e.code());
            std::process::ExitCode::FAILURE
        }
    }
}
