//! The mneme block in AGENTS.md: delimited by markers so that re-running `mneme init` replaces
//! the block and nothing else.

pub const BEGIN: &str = "<!-- mneme:begin (managed by `mneme init`; edit outside this block) -->";
pub const END: &str = "<!-- mneme:end -->";
const BEGIN_PREFIX: &str = "<!-- mneme:begin";

/// Returns `existing` with the block set to `body`: replaced between the markers, or appended
/// after a blank line. Keeps the file's CRLF line endings. Errors on unbalanced markers.
pub fn upsert(existing: &str, body: &str) -> Result<String, String> {
    let eol = if existing.contains("\r\n") {
        "\r\n"
    } else {
        "\n"
    };
    let mut block = String::new();
    for line in std::iter::once(BEGIN)
        .chain(body.trim_end().lines())
        .chain(std::iter::once(END))
    {
        block.push_str(line);
        block.push_str(eol);
    }
    match (existing.split_once(BEGIN_PREFIX), existing.split_once(END)) {
        (Some((before, _)), Some((through_end, after))) if before.len() < through_end.len() => {
            if after.contains(BEGIN_PREFIX) {
                return Err("more than one mneme block".into());
            }
            let after = after
                .strip_prefix("\r\n")
                .or_else(|| after.strip_prefix('\n'))
                .unwrap_or(after);
            Ok(format!("{before}{block}{after}"))
        }
        (None, None) => {
            let mut out = existing.to_owned();
            if !out.is_empty() {
                if !out.ends_with('\n') {
                    out.push_str(eol);
                }
                out.push_str(eol);
            }
            out.push_str(&block);
            Ok(out)
        }
        (Some(_), None) => Err("`<!-- mneme:begin` marker without `<!-- mneme:end -->`".into()),
        _ => Err("`<!-- mneme:end -->` marker without a `<!-- mneme:begin` before it".into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn appends_then_replaces_only_the_block() {
        let first = upsert("# Agents\n\nOwn words.", "v1 text\n").unwrap();
        assert_eq!(
            first,
            format!("# Agents\n\nOwn words.\n\n{BEGIN}\nv1 text\n{END}\n")
        );
        let edited = format!("{first}\nMore own words.\n");
        let second = upsert(&edited, "v2 text").unwrap();
        assert_eq!(
            second,
            format!("# Agents\n\nOwn words.\n\n{BEGIN}\nv2 text\n{END}\n\nMore own words.\n")
        );
        assert_eq!(upsert(&second, "v2 text").unwrap(), second, "idempotent");
    }

    #[test]
    fn empty_file_and_crlf() {
        assert_eq!(upsert("", "x").unwrap(), format!("{BEGIN}\nx\n{END}\n"));
        let crlf = upsert("a\r\n", "x\ny").unwrap();
        assert_eq!(crlf, format!("a\r\n\r\n{BEGIN}\r\nx\r\ny\r\n{END}\r\n"));
    }

    #[test]
    fn unbalanced_markers_are_errors() {
        assert!(upsert(&format!("{BEGIN}\nx\n"), "y").is_err());
        assert!(upsert(&format!("{END}\n{BEGIN}\n"), "y").is_err());
        assert!(upsert(&format!("{BEGIN}\n{END}\n{BEGIN}\n{END}\n"), "y").is_err());
    }
}
