//! From [`Json`] to the engine input: lenient where the collector could reasonably vary,
//! strict about the shape that matters (the module doc of [`super`]).

use super::*;
use crate::error::EngineError;
use crate::json::{self, Json};
use crate::untrusted;

impl Input {
    /// Parses the engine input JSON. Errors say where, never what (it could be page content).
    pub fn parse(text: &str) -> Result<Input, EngineError> {
        Input::parse_with(text, None)
    }

    /// [`Input::parse`] of a head whose frames name their parts in `texts`
    /// ([`Input::parse_parts`]); only those tables are checked (whole documents are the
    /// engine's tests, which also feed the renderer shapes no collector sends).
    pub(crate) fn parse_with(text: &str, texts: Option<&[String]>) -> Result<Input, EngineError> {
        let doc = json::parse(text).map_err(|e| {
            EngineError::InvalidArgument(format!(
                "the snapshot input is not valid JSON: {} at byte {}",
                e.what, e.offset
            ))
        })?;
        Input::from_json(doc, texts).map_err(|what| {
            EngineError::InvalidArgument(format!("the snapshot input does not follow TABLE.md: {what}"))
        })
    }

    fn from_json(doc: Json<'_>, texts: Option<&[String]>) -> Result<Input, &'static str> {
        let Json::Obj(members) = doc else { return Err("the input is not an object") };
        let mut input = Input::default();
        for (k, v) in members {
            match k.as_ref() {
                "frames" => {
                    input.frames = array(v, "frames is not an array")?
                        .into_iter()
                        .map(|f| FrameTable::from_json(f, texts))
                        .collect::<Result<_, _>>()?;
                }
                "options" => input.options = Options::from_json(v)?,
                _ => {}
            }
        }
        Ok(input)
    }
}

impl Options {
    fn from_json(v: Json<'_>) -> Result<Options, &'static str> {
        let mut o = Options::default();
        let members = match v {
            Json::Obj(m) => m,
            Json::Null => return Ok(o),
            _ => return Err("options is not an object"),
        };
        for (k, v) in members {
            match k.as_ref() {
                "interactiveOnly" => o.interactive_only = flag(&v),
                "viewportOnly" => o.viewport_only = flag(&v),
                "root" => o.root = string(v),
                "maxDepth" => o.max_depth = uint(&v).map(|d| d.min(u64::from(u32::MAX)) as u32),
                "redact" => {
                    o.redact = match string(v).as_deref() {
                        Some("off") => Redact::Off,
                        Some("strict") => Redact::Strict,
                        _ => Redact::Safe,
                    }
                }
                "collapse" => o.collapse = !matches!(v, Json::Bool(false) | Json::Num(0.0)),
                "mode" => {
                    o.mode = match string(v).as_deref() {
                        Some("text") => Mode::Text,
                        Some("find") => Mode::Find,
                        Some("read") => Mode::Read,
                        _ => Mode::Snapshot,
                    }
                }
                "query" => o.find.query = string(v).unwrap_or_default(),
                "exact" => o.find.exact = flag(&v),
                "caseSensitive" => o.find.case_sensitive = flag(&v),
                "regex" => o.find.regex = string(v),
                "flags" => o.find.flags = string(v).unwrap_or_default(),
                _ => {}
            }
        }
        Ok(o)
    }
}

impl FrameTable {
    fn from_json(v: Json<'_>, texts: Option<&[String]>) -> Result<FrameTable, &'static str> {
        let Json::Obj(members) = v else { return Err("a frame table is not an object") };
        let mut f = FrameTable::default();
        let (mut ids, mut closed, mut frame_index) = (None, Vec::new(), Vec::new());
        for (k, v) in members {
            let v = match k.as_ref() {
                "nodes" | "ids" | "closed" if texts.is_some() => {
                    untrusted::part(v, texts.unwrap_or_default())?
                }
                _ => v,
            };
            match k.as_ref() {
                "ordinal" => f.ordinal = uint(&v).unwrap_or(0).min(u64::from(u32::MAX)) as u32,
                "path" => {
                    f.path = match v {
                        Json::Arr(items) => items.iter().filter_map(uint).map(|p| p as u32).collect(),
                        _ => Vec::new(),
                    }
                }
                "url" => f.url = string(v).unwrap_or_default(),
                "title" => f.title = string(v).unwrap_or_default(),
                "viewport" => f.viewport = numbers(&v),
                "nodes" => {
                    f.nodes = array(v, "nodes is not an array")?
                        .into_iter()
                        .map(Node::from_json)
                        .collect::<Result<_, _>>()?;
                }
                "ids" if !matches!(v, Json::Null) => {
                    let items = array(v, "ids is not an array")?;
                    ids = Some(
                        items.iter().map(uint).collect::<Option<Vec<u64>>>().ok_or("ids holds a non-id")?,
                    );
                }
                "closed" if !matches!(v, Json::Null) => {
                    closed = array(v, "closed is not an array")?.iter().filter_map(uint).collect();
                }
                "frameIndex" => {
                    for pair in array(v, "frameIndex is not an array")? {
                        match numbers(&pair).as_deref() {
                            Some(&[k, i]) if k >= 0.0 && i >= 0.0 => frame_index.push((k as u64, i as u32)),
                            _ => return Err("frameIndex holds a non-pair"),
                        }
                    }
                }
                _ => {}
            }
        }
        if texts.is_some() {
            untrusted::check_frame(&f, ids.as_deref().map(|ids| (ids, &frame_index)))?;
        }
        if let Some(ids) = ids {
            f.assign_ids(&ids, &closed)?;
        }
        Ok(f)
    }

    /// A table walked outside the agent's world carries ordinals in its id slots: the `k`-th
    /// element node holds `k`, its id is `ids[k]`, and the ordinals in `closed` host a closed
    /// shadow root (TABLE.md, "Ids given apart"). Ordinals grow in document order, and
    /// `closed` lists them in that order.
    fn assign_ids(&mut self, ids: &[u64], closed: &[u64]) -> Result<(), &'static str> {
        let mut closed = closed.iter().peekable();
        for n in &mut self.nodes {
            let Some(k) = n.i else { continue };
            while closed.next_if(|&&c| c < k).is_some() {}
            if closed.next_if_eq(&&k).is_some() {
                n.s = Some("closed".to_owned());
            }
            n.i = Some(
                *usize::try_from(k).ok().and_then(|k| ids.get(k)).ok_or("a node's ordinal is outside ids")?,
            );
        }
        Ok(())
    }
}

impl Node {
    /// A node in either form of `TABLE.md`: the compact array the collector sends
    /// (`[d, "text"]`, `[d, i, "tag"]`, each optionally followed by an object of the other
    /// keys) or the equivalent object with every key.
    fn from_json(v: Json<'_>) -> Result<Node, &'static str> {
        let mut n = Node::default();
        let rest = match v {
            Json::Obj(members) => members,
            Json::Arr(items) => {
                let mut items = items.into_iter();
                let depth = items.next().ok_or("a node array is empty")?;
                n.set("d", depth)?;
                match items.next() {
                    Some(Json::Str(x)) => {
                        n.t = TEXT_TAG.to_owned();
                        n.x = Some(x.into_owned());
                    }
                    Some(i @ Json::Num(_)) => {
                        n.set("i", i)?;
                        n.set("t", items.next().ok_or("an element node array has no tag")?)?;
                    }
                    _ => return Err("a node array is neither [d, text] nor [d, i, tag]"),
                }
                match items.next() {
                    Some(Json::Obj(members)) => members,
                    None | Some(Json::Null) => Vec::new(),
                    Some(_) => return Err("the last item of a node array is not an object"),
                }
            }
            _ => return Err("a node is neither an array nor an object"),
        };
        for (k, v) in rest {
            n.set(&k, v)?;
        }
        Ok(n)
    }

    /// Sets the field of short key `k`; unknown keys are ignored.
    fn set(&mut self, k: &str, v: Json<'_>) -> Result<(), &'static str> {
        match k {
            "i" => self.i = uint(&v),
            "d" => {
                self.d = match v {
                    Json::Null => 0,
                    v => uint(&v).ok_or("a node's d is not a depth")?.min(u64::from(u32::MAX)) as u32,
                }
            }
            "t" => self.t = lowercase(string(v).unwrap_or_default()),
            "x" => self.x = string(v),
            "a" => {
                if let Json::Obj(attrs) = v {
                    self.a = Attrs(
                        attrs
                            .into_iter()
                            .filter_map(|(k, v)| {
                                let v = match v {
                                    Json::Bool(true) => String::new(),
                                    v => string(v)?,
                                };
                                Some((lowercase(k.into_owned()), v))
                            })
                            .collect(),
                    );
                }
            }
            "p" => self.p = Props::from_json(v),
            "h" => self.h = flag(&v),
            "c" => self.c = flag(&v),
            "k" => self.k = flag(&v),
            "r" => {
                self.r = numbers(&v).and_then(|r| match r.as_slice() {
                    &[x, y, w, h] => Some([x, y, w, h]),
                    _ => None,
                })
            }
            "s" => self.s = string(v),
            "f" => self.f = uint(&v).map(|f| f.min(u64::from(u32::MAX)) as u32),
            _ => {}
        }
        Ok(())
    }
}

impl Props {
    fn from_json(v: Json<'_>) -> Props {
        let mut p = Props::default();
        let Json::Obj(members) = v else { return p };
        for (k, v) in members {
            match k.as_ref() {
                "value" => p.value = string(v),
                "checked" => p.checked = boolean(&v),
                "selected" => p.selected = boolean(&v),
                "indeterminate" => p.indeterminate = boolean(&v),
                "label" => p.label = string(v),
                "opts" => p.opts = string(v),
                _ => {}
            }
        }
        p
    }
}

fn array<'a>(v: Json<'a>, err: &'static str) -> Result<Vec<Json<'a>>, &'static str> {
    match v {
        Json::Arr(items) => Ok(items),
        Json::Null => Ok(Vec::new()),
        _ => Err(err),
    }
}

/// A string; an integral number as its decimal digits; a list of those joined by ", ".
fn string(v: Json<'_>) -> Option<String> {
    match v {
        Json::Str(s) => Some(s.into_owned()),
        Json::Num(n) => integral(n).map(|i| i.to_string()),
        Json::Arr(items) => {
            let parts: Vec<String> = items.into_iter().filter_map(string).collect();
            Some(parts.join(", "))
        }
        _ => None,
    }
}

/// `s` in lower case, reusing its buffer (tag and attribute names almost always are).
fn lowercase(mut s: String) -> String {
    s.make_ascii_lowercase();
    s
}

fn integral(n: f64) -> Option<i64> {
    (n.fract() == 0.0 && n.abs() < 9.0e15).then_some(n as i64)
}

fn uint(v: &Json<'_>) -> Option<u64> {
    match v {
        Json::Num(n) => integral(*n).and_then(|i| u64::try_from(i).ok()),
        _ => None,
    }
}

fn boolean(v: &Json<'_>) -> Option<bool> {
    match v {
        Json::Bool(b) => Some(*b),
        Json::Num(n) => Some(*n != 0.0),
        Json::Str(s) => Some(s == "true"),
        _ => None,
    }
}

fn flag(v: &Json<'_>) -> bool {
    boolean(v).unwrap_or(false)
}

fn numbers(v: &Json<'_>) -> Option<Vec<f64>> {
    match v {
        Json::Arr(items) => items
            .iter()
            .map(|x| match x {
                Json::Num(n) => Some(*n),
                _ => None,
            })
            .collect(),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_default_when_absent_or_null() {
        let input = Input::parse(r#"{"frames":[]}"#).unwrap();
        assert_eq!(input.options, Options::default());
        assert!(input.options.collapse);
        let input = Input::parse(
            r#"{"frames":[],"options":{"collapse":null,"redact":null,"root":null,"maxDepth":null}}"#,
        )
        .unwrap();
        assert_eq!(input.options, Options::default());
        let input = Input::parse(
            r#"{"options":{"interactiveOnly":true,"viewportOnly":1,"root":"f1e2","maxDepth":3,"redact":"off","collapse":false}}"#,
        )
        .unwrap();
        let o = input.options;
        assert!(o.interactive_only && o.viewport_only && !o.collapse);
        assert_eq!(o.root.as_deref(), Some("f1e2"));
        assert_eq!(o.max_depth, Some(3));
        assert_eq!(o.redact, Redact::Off);
    }

    #[test]
    fn frame_and_node_fields() {
        let input = Input::parse(
            r##"{"frames":[{"ordinal":2,"path":[1,0],"url":"u","title":"t","viewport":[0,10.5,800,600],"extra":1,
                "nodes":[{"i":3,"d":1,"t":"INPUT","a":{"type":"checkbox","disabled":true,"tabindex":0,"Hidden":false},
                "p":{"checked":1,"value":5,"opts":["a","b"],"label":"L"},"h":1,"c":true,"r":[1,2,3.5,4],"s":"closed","f":2},
                {"d":2,"t":"#text","x":"hi"}]}]}"##,
        )
        .unwrap();
        let f = &input.frames[0];
        assert_eq!(
            (f.ordinal, f.path.as_slice(), f.url.as_str(), f.title.as_str()),
            (2, &[1, 0][..], "u", "t")
        );
        assert_eq!(f.viewport.as_deref(), Some(&[0.0, 10.5, 800.0, 600.0][..]));
        let n = &f.nodes[0];
        assert_eq!(n.i, Some(3));
        assert_eq!(n.t, "input");
        assert_eq!(n.attr("disabled"), Some(""));
        assert_eq!(n.attr("tabindex"), Some("0"));
        assert_eq!(n.attr("hidden"), None);
        assert_eq!(n.p.checked, Some(true));
        assert_eq!(n.p.value.as_deref(), Some("5"));
        assert_eq!(n.p.opts.as_deref(), Some("a, b"));
        assert_eq!(n.p.label.as_deref(), Some("L"));
        assert!(n.h && n.c);
        assert_eq!(n.r, Some([1.0, 2.0, 3.5, 4.0]));
        assert_eq!(n.s.as_deref(), Some("closed"));
        assert_eq!(n.f, Some(2));
        assert_eq!(n.input_type(), "checkbox");
        assert!(f.nodes[1].is_text());
        assert_eq!(f.nodes[1].x.as_deref(), Some("hi"));
    }

    #[test]
    fn ids_given_apart_replace_the_ordinals() {
        let input = Input::parse(
            r#"{"frames":[{"nodes":[[0,0,"div"],[1,"hi"],[1,1,"x-a"],[1,2,"x-b",{"s":"open"}]],"ids":[40,7,41],"closed":[1]}]}"#,
        )
        .unwrap();
        let n = &input.frames[0].nodes;
        assert_eq!((n[0].i, n[2].i, n[3].i), (Some(40), Some(7), Some(41)));
        assert_eq!((n[2].s.as_deref(), n[3].s.as_deref()), (Some("closed"), Some("open")));
        assert_eq!(n[1].i, None);
        // Without ids the slots are the ids themselves.
        let plain = Input::parse(r#"{"frames":[{"nodes":[[0,5,"div"]],"ids":null}]}"#).unwrap();
        assert_eq!(plain.frames[0].nodes[0].i, Some(5));
    }

    #[test]
    fn ids_given_apart_must_cover_every_element() {
        for bad in [
            r#"{"frames":[{"nodes":[[0,0,"div"],[1,1,"p"]],"ids":[3]}]}"#,
            r#"{"frames":[{"nodes":[[0,0,"div"]],"ids":["x"]}]}"#,
            r#"{"frames":[{"nodes":[[0,0,"div"]],"ids":{}}]}"#,
        ] {
            assert!(Input::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn compact_nodes_equal_their_object_form() {
        let compact = Input::parse(
            r#"{"frames":[{"nodes":[[0,1,"DIV"],[1,"hi"],[1,2,"input",{"a":{"type":"checkbox"},"p":{"checked":true},"h":1}],[2,"cut",{"c":1}],[1,3,"iframe",null]]}]}"#,
        )
        .unwrap();
        let objects = Input::parse(
            r##"{"frames":[{"nodes":[{"d":0,"i":1,"t":"div"},{"d":1,"t":"#text","x":"hi"},{"d":1,"i":2,"t":"input","a":{"type":"checkbox"},"p":{"checked":true},"h":1},{"d":2,"t":"#text","x":"cut","c":1},{"d":1,"i":3,"t":"iframe"}]}]}"##,
        )
        .unwrap();
        assert_eq!(format!("{:?}", compact.frames[0].nodes), format!("{:?}", objects.frames[0].nodes));
        let n = &compact.frames[0].nodes;
        assert_eq!((n[0].i, n[0].t.as_str()), (Some(1), "div"));
        assert_eq!((n[1].d, n[1].x.as_deref(), n[1].is_text()), (1, Some("hi"), true));
        assert!(n[2].h && n[2].p.checked == Some(true) && n[2].input_type() == "checkbox");
        assert!(n[3].c);
    }

    #[test]
    fn bad_shape_is_an_error() {
        for bad in [
            r#"{"frames":[{"nodes":[{"d":"x"}]}]}"#,
            r#"{"frames":{}}"#,
            r#"{"frames":[{"nodes":[1]}]}"#,
            r#"{"frames":[{"nodes":[[]]}]}"#,
            r#"{"frames":[{"nodes":[[1]]}]}"#,
            r#"{"frames":[{"nodes":[[1,2]]}]}"#,
            r#"{"frames":[{"nodes":[["x","y"]]}]}"#,
            r#"{"frames":[{"nodes":[[1,"text",5]]}]}"#,
            r#"{"frames":[{"nodes":[{"d":-1}]}]}"#,
            r#"[1]"#,
            r#"{"frames":[1,2"#,
        ] {
            assert!(matches!(Input::parse(bad), Err(EngineError::InvalidArgument(_))), "{bad}");
        }
    }
}
