//! Unit tests of the parent module.

use super::*;
use crate::digest::sha256_hex;
use crate::protocol::{Incoming, MAX_TO_BROWSER, parse_message};
use proptest::prelude::*;
use std::time::Duration;

fn frame(body: &[u8]) -> Vec<u8> {
    encode_frame(body, usize::MAX >> 1).unwrap()
}

fn decode_all(dec: &mut FrameDecoder) -> Vec<Result<Vec<u8>, FrameError>> {
    std::iter::from_fn(|| dec.next_frame()).collect()
}

fn reassemble(frames: &[Vec<u8>]) -> String {
    let mut r = Reassembler::new(usize::MAX);
    let mut out = None;
    for (i, f) in frames.iter().enumerate() {
        let Ok(Incoming::Chunk(c)) = parse_message(f) else { panic!("frame {i} is not a chunk") };
        if let Some((_, payload)) = r.push(c, Instant::now()).unwrap() {
            assert_eq!(i, frames.len() - 1, "last before the end");
            out = Some(payload);
        }
    }
    out.unwrap()
}

#[test]
fn length_prefix_is_native_endian() {
    let f = encode_frame(b"{}", 10).unwrap();
    assert_eq!(&f[..4], &2u32.to_ne_bytes());
    assert_eq!(&f[4..], b"{}");
    assert_eq!(encode_frame(b"{}", 1), Err(FrameError::TooLarge { len: 2, cap: 1 }));
}

#[test]
fn frame_bodies_of_exactly_the_cap_pass_and_one_more_is_refused() {
    let exact = vec![b'a'; MAX_TO_BROWSER];
    assert_eq!(encode_frame(&exact, MAX_TO_BROWSER).unwrap().len(), MAX_TO_BROWSER + 4);
    let over = vec![b'a'; MAX_TO_BROWSER + 1];
    assert!(encode_frame(&over, MAX_TO_BROWSER).is_err());

    let mut dec = FrameDecoder::new(MAX_TO_BROWSER);
    dec.push(&frame(&exact));
    dec.push(&frame(&over));
    dec.push(&frame(b"{}"));
    let got = decode_all(&mut dec);
    assert_eq!(got.len(), 3);
    assert_eq!(got[0].as_ref().unwrap().len(), MAX_TO_BROWSER);
    assert_eq!(got[1], Err(FrameError::TooLarge { len: MAX_TO_BROWSER + 1, cap: MAX_TO_BROWSER }));
    assert_eq!(got[2].as_ref().unwrap(), b"{}");
    assert_eq!(dec.pending_bytes(), 0);
}

#[test]
fn messages_for_the_browser_at_the_cap_go_whole_and_over_it_are_chunked() {
    let at_cap = format!("\"{}\"", "a".repeat(MAX_TO_BROWSER - 2));
    let frames = frames_for_browser("c1:1", at_cap.as_bytes(), MAX_TO_BROWSER, 64 << 20).unwrap();
    assert_eq!(frames, vec![at_cap.as_bytes().to_vec()]);
    let over = format!("\"{}\"", "a".repeat(MAX_TO_BROWSER - 1));
    let frames = frames_for_browser("c1:1", over.as_bytes(), MAX_TO_BROWSER, 64 << 20).unwrap();
    assert_eq!(frames.len(), 2);
    assert!(frames.iter().all(|f| f.len() <= MAX_TO_BROWSER));
    assert_eq!(reassemble(&frames), over);
    let e = frames_for_browser("x", over.as_bytes(), MAX_TO_BROWSER, MAX_TO_BROWSER).unwrap_err();
    assert_eq!(e.code, ErrorCode::PayloadTooLarge);
}

#[test]
fn oversized_length_is_skipped_across_split_reads() {
    let mut dec = FrameDecoder::new(8);
    let big = frame(&[b'x'; 100]);
    dec.push(&big[..10]);
    assert!(matches!(dec.next_frame(), Some(Err(FrameError::TooLarge { len: 100, cap: 8 }))));
    assert!(dec.next_frame().is_none());
    dec.push(&big[10..50]);
    assert!(dec.next_frame().is_none());
    let mut rest = big[50..].to_vec();
    rest.extend(frame(b"ok"));
    dec.push(&rest);
    assert_eq!(dec.next_frame(), Some(Ok(b"ok".to_vec())));
    assert_eq!(dec.pending_bytes(), 0);
}

#[test]
fn truncated_input_leaves_pending_bytes() {
    let mut dec = FrameDecoder::new(100);
    let f = frame(b"{\"a\":1}");
    dec.push(&f[..6]);
    assert!(dec.next_frame().is_none());
    assert_eq!(dec.pending_bytes(), 6);
}

fn check_big_payload(payload: &str) {
    assert!(payload.len() >= 3 << 20);
    let json = serde_json::to_string(payload).unwrap();
    let frames = frames_for_browser("c12:345", json.as_bytes(), MAX_TO_BROWSER, 64 << 20).unwrap();
    assert!(frames.len() >= 2);
    for f in &frames {
        assert!(f.len() <= MAX_TO_BROWSER, "frame of {} bytes", f.len());
        assert!(std::str::from_utf8(f).is_ok());
    }
    let back = reassemble(&frames);
    assert_eq!(sha256_hex(back.as_bytes()), sha256_hex(json.as_bytes()));
    let decoded: String = serde_json::from_str(&back).unwrap();
    assert_eq!(sha256_hex(decoded.as_bytes()), sha256_hex(payload.as_bytes()));
}

#[test]
fn three_mib_of_quotes_and_backslashes_reassemble() {
    let payload: String = "\"\\".repeat((3 << 20) / 2 + 7);
    check_big_payload(&payload);
}

#[test]
fn three_mib_of_four_byte_chars_reassemble() {
    let payload: String = "😀𝄞".repeat((3 << 20) / 8 + 3);
    check_big_payload(&payload);
}

#[test]
fn control_characters_count_six_bytes() {
    let payload: String = "\u{1}\n".repeat(400_000);
    check_big_payload(&payload.repeat(4));
}

#[test]
fn escaped_len_matches_serde_json() {
    for c in ['a', '"', '\\', '\n', '\u{0}', '\u{1f}', '\u{7f}', 'é', '€', '😀', '/', '\u{2028}'] {
        let json = serde_json::to_string(&c.to_string()).unwrap();
        assert_eq!(escaped_len(c), json.len() - 2, "{c:?}");
    }
}

#[test]
fn reassembler_refuses_out_of_order() {
    let mut r = Reassembler::new(100);
    let c =
        |seq, last| ChunkFrame { v: 1, chunk: ChunkHeader { id: "a".into(), seq, last }, data: "x".into() };
    let now = Instant::now();
    assert!(r.push(c(1, false), now).is_err());
    assert!(r.push(c(0, false), now).unwrap().is_none());
    assert_eq!(r.push(c(1, true), now).unwrap(), Some(("a".into(), "xx".into())));
    assert_eq!((r.unfinished(), r.held_bytes()), (0, 0));
}

#[test]
fn id_too_long_is_an_error_not_a_loop() {
    let id = "i".repeat(200);
    assert!(matches!(chunk_payload(&id, "abc", 100), Err(FrameError::IdTooLong { .. })));
}

fn chunk(id: &str, seq: u32, last: bool, data: &str) -> ChunkFrame {
    ChunkFrame { v: 1, chunk: ChunkHeader { id: id.into(), seq, last }, data: data.into() }
}

/// Regression: the decoder reserved the announced length as soon as a header arrived, so
/// a header alone (no body ever sent) cost up to the cap.
#[test]
fn a_header_alone_reserves_nothing() {
    let mut dec = FrameDecoder::new(64 << 20);
    dec.push(&((64u32 << 20).to_ne_bytes()));
    dec.push(b"{");
    assert!(dec.next_frame().is_none());
    assert!(dec.buffered_capacity() < 64 * 1024, "{} bytes reserved", dec.buffered_capacity());
    let mut dec = FrameDecoder::new(64 << 20);
    dec.push(&u32::MAX.to_ne_bytes());
    assert_eq!(dec.next_frame(), Some(Err(FrameError::TooLarge { len: u32::MAX as usize, cap: 64 << 20 })));
    assert!(dec.buffered_capacity() < 64 * 1024);
}

#[test]
fn a_big_frame_leaves_as_its_buffer_and_the_rest_stays() {
    let big = vec![b'7'; 300_000];
    let mut stream = frame(&big);
    stream.extend(frame(b"{}"));
    stream.extend(&frame(b"[1]")[..5]);
    let mut dec = FrameDecoder::new(1 << 20);
    for piece in stream.chunks(64 * 1024) {
        dec.push(piece);
    }
    assert_eq!(dec.next_frame(), Some(Ok(big)));
    assert!(dec.buffered_capacity() < 64 * 1024, "{}", dec.buffered_capacity());
    assert_eq!(dec.next_frame(), Some(Ok(b"{}".to_vec())));
    assert!(dec.next_frame().is_none());
    assert_eq!(dec.pending_bytes(), 5);
    assert!(!dec.inside_header());
    let mut dec = FrameDecoder::new(10);
    dec.push(&[3, 0]);
    assert!(dec.inside_header());
}

/// Regression: 10 k chunk ids that never finish were all kept (66 MB), forever.
#[test]
fn ten_thousand_unfinished_ids_keep_only_the_cap() {
    let mut r = Reassembler::new(64 << 20);
    let now = Instant::now();
    let data = "x".repeat(6_600);
    let mut busy = 0;
    for i in 0..10_000 {
        if let Err(e) = r.push(chunk(&format!("id{i}"), 0, false, &data), now) {
            assert_eq!(e.code, ErrorCode::Busy);
            busy += 1;
        }
    }
    assert_eq!(r.unfinished(), MAX_UNFINISHED_CHUNKS);
    assert_eq!(busy, 10_000 - MAX_UNFINISHED_CHUNKS);
    assert_eq!(r.held_bytes(), MAX_UNFINISHED_CHUNKS * data.len());
    // A known id still progresses, and a payload in one chunk needs no slot.
    assert!(r.push(chunk("id3", 1, false, "y"), now).unwrap().is_none());
    assert_eq!(r.push(chunk("one", 0, true, "z"), now).unwrap(), Some(("one".into(), "z".into())));
}

#[test]
fn unfinished_payloads_share_one_byte_cap_and_expire() {
    let mut r = Reassembler::with_limits(10, 64, Duration::from_secs(30));
    let t0 = Instant::now();
    assert!(r.push(chunk("a", 0, false, "aaaa"), t0).unwrap().is_none());
    assert!(r.push(chunk("b", 0, false, "bbbb"), t0 + Duration::from_secs(10)).unwrap().is_none());
    let e = r.push(chunk("c", 0, false, "ccc"), t0).unwrap_err();
    assert_eq!(e.code, ErrorCode::PayloadTooLarge);
    // Growing one over the shared cap drops that one.
    assert_eq!(r.push(chunk("a", 1, false, "aaa"), t0).unwrap_err().code, ErrorCode::PayloadTooLarge);
    assert_eq!((r.unfinished(), r.held_bytes()), (1, 4));
    assert_eq!(r.next_deadline(), Some(t0 + Duration::from_secs(40)));
    assert!(r.expire(t0 + Duration::from_secs(39)).is_empty());
    assert_eq!(r.expire(t0 + Duration::from_secs(40)), vec![("b".to_owned(), 4)]);
    assert_eq!((r.unfinished(), r.held_bytes(), r.next_deadline()), (0, 0, None));
}

#[derive(Debug, Clone)]
enum Piece {
    Body(Vec<u8>),
    Oversized(usize),
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn frames_survive_any_split(bodies in prop::collection::vec(prop::collection::vec(any::<u8>(), 0..3000), 0..12),
                                cuts in prop::collection::vec(1usize..500, 1..40)) {
        let stream: Vec<u8> = bodies.iter().flat_map(|b| frame(b)).collect();
        let mut dec = FrameDecoder::new(4096);
        let mut got = Vec::new();
        let mut pos = 0;
        let mut i = 0;
        while pos < stream.len() {
            let n = cuts[i % cuts.len()].min(stream.len() - pos);
            dec.push(&stream[pos..pos + n]);
            pos += n;
            i += 1;
            got.extend(decode_all(&mut dec).into_iter().map(|r| r.unwrap()));
        }
        prop_assert_eq!(got, bodies);
        prop_assert_eq!(dec.pending_bytes(), 0);
    }

    #[test]
    fn garbage_never_panics_and_stays_bounded(garbage in prop::collection::vec(any::<u8>(), 0..5000)) {
        let mut dec = FrameDecoder::new(1024);
        for piece in garbage.chunks(97) {
            dec.push(piece);
            for body in std::iter::from_fn(|| dec.next_frame()).flatten() {
                prop_assert!(body.len() <= 1024);
                let _ = parse_message(&body);
            }
        }
        prop_assert!(dec.buf.len() - dec.start <= 1024 + 4 + 97);
    }

    /// Socket side: oversized frames among good ones are reported in order and their
    /// bodies skipped, whatever the read sizes; memory stays near one frame plus one read.
    #[test]
    fn oversized_frames_are_skipped_in_order_across_any_split(
        pieces in prop::collection::vec(prop_oneof![
            prop::collection::vec(any::<u8>(), 0..600).prop_map(Piece::Body),
            (601usize..5000).prop_map(Piece::Oversized),
        ], 0..16),
        cuts in prop::collection::vec(1usize..700, 1..20),
    ) {
        let mut stream = Vec::new();
        for p in &pieces {
            match p {
                Piece::Body(b) => stream.extend(frame(b)),
                Piece::Oversized(n) => {
                    stream.extend((*n as u32).to_ne_bytes());
                    stream.extend(std::iter::repeat_n(b'~', *n));
                }
            }
        }
        let mut dec = FrameDecoder::new(600);
        let mut got = Vec::new();
        let (mut pos, mut i) = (0, 0);
        while pos < stream.len() {
            let n = cuts[i % cuts.len()].min(stream.len() - pos);
            dec.push(&stream[pos..pos + n]);
            pos += n;
            i += 1;
            got.extend(decode_all(&mut dec));
            prop_assert!(dec.buffered_capacity() <= 2 * (600 + HEADER_LEN + 700) + 64 * 1024);
        }
        let want: Vec<Result<Vec<u8>, FrameError>> = pieces
            .iter()
            .map(|p| match p {
                Piece::Body(b) => Ok(b.clone()),
                Piece::Oversized(n) => Err(FrameError::TooLarge { len: *n, cap: 600 }),
            })
            .collect();
        prop_assert_eq!(got, want);
        prop_assert_eq!(dec.pending_bytes(), 0);
    }

    /// Any sequence of chunks (ids, seqs, last flags, sizes, times): no panic, and the
    /// caps on ids, bytes and age hold after every step.
    #[test]
    fn reassembly_of_any_chunk_sequence_stays_within_its_caps(
        steps in prop::collection::vec((0u8..12, 0u32..4, any::<bool>(), 0usize..40, 0u64..20), 0..200),
    ) {
        let deadline = Duration::from_secs(30);
        let mut r = Reassembler::with_limits(100, 5, deadline);
        let t0 = Instant::now();
        let mut t = t0;
        for (id, seq, last, len, dt) in steps {
            t += Duration::from_secs(dt);
            r.expire(t);
            let data = "é".repeat(len / 2);
            if let Ok(Some((_, payload))) = r.push(chunk(&format!("k{id}"), seq, last, &data), t) {
                prop_assert!(payload.len() <= 100);
            }
            prop_assert!(r.unfinished() <= 5);
            prop_assert!(r.held_bytes() <= 100);
            if let Some(at) = r.next_deadline() {
                prop_assert!(at > t.checked_sub(deadline).unwrap_or(t0));
            }
        }
    }

    #[test]
    fn chunks_fit_and_reassemble(s in "(?s).{0,3000}", cap in 120usize..600) {
        let json = serde_json::to_string(&s).unwrap();
        let frames = chunk_payload("c1:9", &json, cap).unwrap();
        for f in &frames {
            prop_assert!(f.len() <= cap);
        }
        prop_assert_eq!(reassemble(&frames), json);
    }
}
