//! `upload_file_by_uid` and `upload_file`: files from this machine into a page's
//! `<input type=file>` (or dropped on a drop zone), without a privileged context.
//!
//! The upload rule ([`crate::upload`]) admits each path first. Then the upload is opened on
//! its element (`page.uploadOpen`: resolved, auto-waited, a ref re-checked), the files are
//! read here and sent in pieces (`page.uploadChunk`, each one native-messaging frame, a few
//! in flight at once) that the page decodes as they arrive, and `page.upload` sets them on
//! that element; the action settles like a click. An upload that fails midway is cancelled
//! (`page.uploadCancel`), so nothing stays staged. Paths and contents are never logged.
//!
//! ```text
//! server ──uploadOpen──▶ helper ──▶ agent binds the element
//! server ══uploadChunk×n══▶ helper ──▶ agent decodes each piece (up to WINDOW in flight)
//! server ──upload──▶ helper ──▶ agent builds the Files from the pieces, sets them, settle
//! ```

use std::io::Read;
use std::path::PathBuf;
use std::time::Instant;

use base64::Engine as _;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use webext_mcp_host::protocol::MAX_TO_BROWSER;
use webext_mcp_host::protocol::methods::{
    BrowserInfo, FileMeta, Method, PageUpload, PageUploadCancel, PageUploadChunk, PageUploadOpen,
};
use webext_mcp_host::protocol::{ErrorBody, ErrorCode};

use crate::bridge::results::{Acted, Staged, to_value};
use crate::bridge::{TabTarget, Timeout};
use crate::tools::registry::{Wait, decode_with, schema_with};
use crate::tools::{Call, Ctx, Effect, ToolDef, ToolOutput, ToolResult, Toolset};
use crate::upload::{Admitted, DEFAULT_MAX_MEGABYTES, Rule, too_large};

/// Raw bytes per piece: a multiple of 3 (every piece but a file's last decodes alone), whose
/// base64 (1,044,480 chars) and the request's envelope fit one frame to the browser, so the
/// host never splits a piece and the helper never reassembles and parses one twice.
const PIECE: usize = 783_360;
/// Room left in a frame for the request's envelope (method, ids, tab, container).
const ENVELOPE_ROOM: usize = 4096;
const _: () = assert!(PIECE.is_multiple_of(3) && PIECE / 3 * 4 + ENVELOPE_ROOM <= MAX_TO_BROWSER);
/// Pieces in flight at once: the next ones cross the host while the page decodes one.
const WINDOW: usize = 3;

pub fn tools() -> Vec<ToolDef> {
    vec![UPLOAD_FILE_BY_UID, UPLOAD_FILE]
}

/// Arguments of `upload_file_by_uid` (plus the tab's address).
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct UploadUidArgs {
    /// A ref (e12) of an <input type=file>, or of a drop zone with drop.
    pub uid: String,
    /// Absolute paths of the files, in order.
    pub paths: Vec<String>,
    /// Drop the files on the element (dragenter, dragover, drop) instead of setting an input.
    #[serde(default)]
    pub drop: bool,
}

/// Arguments of `upload_file` (plus the tab's address).
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct UploadArgs {
    pub locator: String,
    /// 0-based match index.
    #[serde(default)]
    pub nth: Option<u32>,
    pub paths: Vec<String>,
    #[serde(default)]
    pub drop: bool,
}

const UPLOAD_FILE_BY_UID: ToolDef = ToolDef {
    name: "upload_file_by_uid",
    title: "Upload files",
    toolset: Toolset::Input,
    description: "Set files from this machine (absolute paths under the allowed upload roots; never dotfiles or secret folders) on the <input type=file> a ref names, or drop them on it with drop: true.",
    effect: Effect::Additive,
    input_schema: schema_with::<(TabTarget, Wait), UploadUidArgs>,
    run: |ctx, call, args| Box::pin(upload_file_by_uid(ctx, call, args)),
};

async fn upload_file_by_uid(ctx: Ctx, call: Call, args: Value) -> ToolResult {
    let ((target, w), a) = decode_with::<(TabTarget, Wait), UploadUidArgs>(args)?;
    run(
        ctx,
        call,
        target,
        Upload { locator: a.uid, nth: None, paths: a.paths, drop: a.drop, timeout_ms: w.timeout_ms },
    )
    .await
}

const UPLOAD_FILE: ToolDef = ToolDef {
    name: "upload_file",
    title: "Upload files by locator",
    toolset: Toolset::Input,
    description: "upload_file_by_uid by locator: a ref, text=… or CSS (e.g. input[type=file]).",
    effect: Effect::Additive,
    input_schema: schema_with::<(TabTarget, Wait), UploadArgs>,
    run: |ctx, call, args| Box::pin(upload_file(ctx, call, args)),
};

async fn upload_file(ctx: Ctx, call: Call, args: Value) -> ToolResult {
    let ((target, w), a) = decode_with::<(TabTarget, Wait), UploadArgs>(args)?;
    run(
        ctx,
        call,
        target,
        Upload { locator: a.locator, nth: a.nth, paths: a.paths, drop: a.drop, timeout_ms: w.timeout_ms },
    )
    .await
}

struct Upload {
    locator: String,
    nth: Option<u32>,
    paths: Vec<String>,
    drop: bool,
    timeout_ms: Option<u64>,
}

/// The upload rule for this server: config roots, running sessions' projects (those the rule
/// admits), the uploads folder; webext-mcp's own runtime, config and profiles folders, the
/// browsers' daily profiles and the sessions' profiles are secret.
pub fn rule(ctx: &Ctx) -> Result<Rule, ErrorBody> {
    let roots: Vec<PathBuf> = ctx.config.list("upload.roots").into_iter().map(PathBuf::from).collect();
    if let Some(bad) = roots.iter().find(|r| !r.is_absolute()) {
        return Err(ErrorBody::invalid_argument(format!(
            "upload root `{}` is not an absolute path",
            bad.display()
        ))
        .with_hint("fix `upload.roots` in the config file (get_config shows where it is)"));
    }
    let megabytes = match ctx.config.text("upload.maxMegabytes") {
        None => DEFAULT_MAX_MEGABYTES,
        Some(t) => t.parse::<u64>().ok().filter(|&n| n > 0).ok_or_else(|| {
            ErrorBody::invalid_argument(format!(
                "`upload.maxMegabytes` must be a positive whole number, not `{t}`"
            ))
            .with_hint("fix it in the config file")
        })?,
    };
    let mut private = vec![
        ctx.paths.runtime_dir.clone(),
        ctx.paths.config_dir.clone(),
        ctx.paths.data_dir.join("profiles"),
    ];
    private.extend(crate::runner::profile::daily_profiles(&ctx.paths, &ctx.env));
    let sessions = crate::session::control::running_sessions(&ctx.paths.runtime_search);
    Ok(Rule::new(&roots, &ctx.paths.data_dir.join("uploads"), &ctx.paths.home, &private, megabytes << 20)
        .with_sessions(&sessions))
}

async fn run(ctx: Ctx, call: Call, target: TabTarget, u: Upload) -> ToolResult {
    if u.paths.is_empty() {
        return Err(
            ErrorBody::invalid_argument("`paths` is empty").with_hint("pass the absolute paths of the files")
        );
    }
    if u.paths.len() > 100 {
        return Err(ErrorBody::invalid_argument("at most 100 files per upload"));
    }
    let rule = rule(&ctx)?;
    let files = u.paths.iter().map(|p| rule.check(p)).collect::<Result<Vec<Admitted>, _>>()?;
    let total: u64 = files.iter().map(|f| f.size).sum();
    if total > rule.max_bytes {
        return Err(too_large("these files together", total, rule.max_bytes));
    }
    let timeout = Timeout::from_arg(u.timeout_ms, PageUpload::TIMEOUT_MS)?;
    let meta: Vec<FileMeta> = files
        .iter()
        .map(|f| {
            let modified = std::fs::metadata(&f.path)
                .and_then(|m| m.modified())
                .ok()
                .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                .map_or(0, |d| d.as_millis() as u64);
            FileMeta { name: f.name.clone(), mime: f.mime.to_owned(), size: f.size, last_modified: modified }
        })
        .collect();
    // Chromium debugger mode sets an input's files from their paths: nothing to stage.
    if !u.drop && debugger_on(&ctx, &target, timeout).await {
        let paths: Option<Vec<&str>> = files.iter().map(|f| f.path.to_str()).collect();
        if let Some(paths) = paths {
            let params = PageUpload {
                locator: u.locator.clone(),
                nth: u.nth.map(u64::from),
                upload: None,
                files: meta.clone(),
                paths: Some(paths.into_iter().map(str::to_owned).collect()),
                drop: None,
                timeout_ms: Some(timeout.ms()),
            };
            match ctx.browser.call_tab(&target, params, timeout).await {
                Ok((_, out)) => return report(&u, out),
                // In a frame, or debugger mode switched off meanwhile: staged as usual.
                Err(e)
                    if e.code == ErrorCode::Unsupported
                        && e.data.as_ref().and_then(|d| d.get("stage")) == Some(&json!(true)) => {}
                Err(e) => return Err(e),
            }
        }
    }
    let token = webext_mcp_host::descriptor::Token::generate()
        .map_err(|e| ErrorBody::internal(format!("cannot draw an upload id: {e}")))?;
    let id = format!("u{}", &token.as_str()[..24]);
    let started = Instant::now();
    // `page.uploadOpen` and `page.upload` name the same element and files.
    let open = PageUploadOpen {
        upload: id.clone(),
        locator: u.locator.clone(),
        nth: u.nth.map(u64::from),
        files: meta,
        drop: Some(u.drop),
        timeout_ms: Some(timeout.ms()),
    };
    let (_, opened) = ctx.browser.call_tab(&target, open.clone(), timeout).await?;
    let open_ms = started.elapsed().as_millis() as u64;
    let pieces = match stage(&ctx, &call, &target, &id, &files, total, timeout).await {
        Ok(p) => p,
        Err(e) => {
            cancel(&ctx, &target, &id).await;
            return Err(e);
        }
    };
    let staging_ms = started.elapsed().as_millis() as u64 - open_ms;
    // The helper drops the upload itself when this fails.
    let (_, mut out) = ctx.browser.call_tab(&target, PageUpload::from(&open), timeout).await?;
    let upload_ms = started.elapsed().as_millis() as u64 - open_ms - staging_ms;
    for key in ["accept", "warnings"] {
        if let Some(v) = opened.extra.get(key) {
            out.extra.insert(key.to_owned(), v.clone());
        }
    }
    out.extra.insert(
        "timings".to_owned(),
        json!({
            "openMs": open_ms, "stagingMs": staging_ms, "uploadMs": upload_ms, "staging": opened.staging,
            "pieces": pieces.count, "piecesRttMs": pieces.rtt_ms, "piecesHelperMs": pieces.helper_ms,
            "piecesPageMs": pieces.page_ms, "piecesDecodeMs": pieces.decode_ms,
            "piecesHopsMs": pieces.hops_ms,
        }),
    );
    report(&u, out)
}

/// Where the pieces' time went, summed over pieces (they overlap: [`WINDOW`] in flight):
/// each request's round trip, the helper's share of it, the hand-over to the frame, the
/// agent's decode, and the hops between the processes.
#[derive(Debug, Default)]
struct PieceTimes {
    count: u32,
    rtt_ms: f64,
    helper_ms: f64,
    page_ms: f64,
    decode_ms: f64,
    /// Summed hops, by the wall clock of each process: server → helper (the host and native
    /// messaging), in the helper before the hand-over, hand-over → agent, the agent's
    /// decode, agent → helper, helper → server. NaN when the helper sent no trace.
    hops_ms: [f64; 6],
}

impl PieceTimes {
    fn add(&mut self, (rtt_ms, staged, at): &(f64, Staged, [f64; 2])) {
        let t = |k: &str| {
            staged.extra.get("timings").and_then(|t| t.get(k)).and_then(Value::as_f64).unwrap_or(0.0)
        };
        self.count += 1;
        self.rtt_ms += rtt_ms;
        self.helper_ms += t("helperMs");
        self.page_ms += t("pageMs");
        self.decode_ms += t("decodeMs");
        let tr = |k: &str| {
            staged
                .extra
                .get("timings")
                .and_then(|t| t.get("trace"))
                .and_then(|t| t.get(k))
                .and_then(Value::as_f64)
                .unwrap_or(f64::NAN)
        };
        let at = [at[0], tr("swIn"), tr("handed"), tr("agentIn"), tr("agentOut"), tr("swBack"), at[1]];
        for (k, hop) in self.hops_ms.iter_mut().enumerate() {
            *hop += at[k + 1] - at[k];
        }
    }
}

/// Sends every file of upload `id` in pieces, [`WINDOW`] requests in flight at once (the
/// helper takes pieces in any order). Reports progress as pieces land.
async fn stage(
    ctx: &Ctx,
    call: &Call,
    target: &TabTarget,
    id: &str,
    files: &[Admitted],
    total: u64,
    timeout: Timeout,
) -> Result<PieceTimes, ErrorBody> {
    let mut flying: tokio::task::JoinSet<Result<Landed, ErrorBody>> = tokio::task::JoinSet::new();
    let mut sent = 0u64;
    let mut times = PieceTimes::default();
    let mut landed = |(n, piece): Landed| {
        sent += n as u64;
        times.add(&piece);
        call.report(sent as f64, Some(total as f64), format!("staged {sent} of {total} bytes"));
    };
    for (k, f) in files.iter().enumerate() {
        let mut file = std::fs::File::open(&f.path)
            .map_err(|e| ErrorBody::not_found(format!("cannot open {}: {e}", f.name)))?;
        let mut index = 0u32;
        loop {
            let mut buf = Vec::with_capacity(PIECE.min(f.size as usize + 1));
            (&mut file)
                .take(PIECE as u64)
                .read_to_end(&mut buf)
                .map_err(|e| ErrorBody::internal(format!("cannot read {}: {e}", f.name)))?;
            if buf.is_empty() && index > 0 {
                break;
            }
            while flying.len() >= WINDOW {
                if let Some(done) = flying.join_next().await {
                    landed(joined(done)?);
                }
            }
            let n = buf.len();
            let (ctx, target, id) = (ctx.clone(), target.clone(), id.to_owned());
            flying.spawn(async move {
                let data = base64::engine::general_purpose::STANDARD.encode(&buf);
                drop(buf);
                let params = PageUploadChunk { upload: id, file: k as u32, index, data };
                let sent_at = Instant::now();
                let epoch = || {
                    std::time::SystemTime::now()
                        .duration_since(std::time::UNIX_EPOCH)
                        .map_or(0.0, |d| d.as_secs_f64() * 1000.0)
                };
                let sent_epoch = epoch();
                let (_, staged) = ctx.browser.call_tab(&target, params, timeout).await?;
                Ok((n, (sent_at.elapsed().as_secs_f64() * 1000.0, staged, [sent_epoch, epoch()])))
            });
            index += 1;
            if n < PIECE {
                break;
            }
        }
    }
    while let Some(done) = flying.join_next().await {
        landed(joined(done)?);
    }
    Ok(times)
}

type Landed = (usize, (f64, Staged, [f64; 2]));

fn joined(done: Result<Result<Landed, ErrorBody>, tokio::task::JoinError>) -> Result<Landed, ErrorBody> {
    done.map_err(|e| ErrorBody::internal(format!("sending a piece failed: {e}")))?
}

/// Drops upload `id` in the helper (best effort: a gone tab holds nothing anyway).
async fn cancel(ctx: &Ctx, target: &TabTarget, id: &str) {
    let params = PageUploadCancel { upload: id.to_owned() };
    let r = ctx.browser.call_tab(target, params, Timeout::fixed(PageUploadCancel::TIMEOUT_MS)).await;
    if let Err(e) = r {
        tracing::debug!(code = ?e.code, "cancelling an upload failed");
    }
}

/// Whether the browser's helper has debugger mode on now (`browser.info` capabilities).
async fn debugger_on(ctx: &Ctx, target: &TabTarget, timeout: Timeout) -> bool {
    let info = ctx.browser.call(target.browser.as_deref(), BrowserInfo {}, timeout).await;
    info.is_ok_and(|(_, i)| i.capabilities.iter().any(|c| c == "debugger"))
}

fn report(u: &Upload, out: Acted) -> ToolResult {
    let names: Vec<String> = out
        .extra
        .get("files")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .map(|f| format!("{} ({} B)", f["name"].as_str().unwrap_or("?"), f["size"]))
        .collect();
    let verb = if u.drop { "dropped" } else { "uploaded" };
    let mut text = super::actions::summary(&format!("{verb} {}", names.join(", ")), &out);
    for w in
        out.extra.get("warnings").and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str)
    {
        text.push_str(&format!("\nwarning: {w}"));
    }
    Ok(ToolOutput { structured: to_value(&out)?, text: Some(text) })
}
