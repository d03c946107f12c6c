//! Reading a user's text file (a model, an exception set, a saved trace)
//! in chunks: a file that is not UTF-8 text is refused at its first bad
//! byte, not after reading all of it, and a file past `MAX_TEXT_BYTES` is
//! refused there, so a device or a stream (`/dev/urandom`, `/dev/zero`)
//! ends in a clear error instead of filling the memory. Between chunks,
//! the load budgets (`--timeout`, `--max-memory`) are checked.

use super::Diagnostic;
use super::load::budget;
use std::io::Read;
use std::path::Path;

/// The largest text file read: far beyond any model written or generated
/// (BEEM's largest DVE file, plc.3.prop1, is 1.9 MB; `weft gen lock` at
/// its most sections, 100,000, writes about 45 MB).
pub(crate) const MAX_TEXT_BYTES: usize = 1 << 30;

/// Read at a time, between two checks.
const CHUNK: usize = 1 << 20;

/// The text of `path`; `what` names the kind of file in errors ("model",
/// "exceptions", "trace").
pub(crate) fn read_text(path: &Path, what: &str) -> Result<String, Box<Diagnostic>> {
    read_text_up_to(path, what, MAX_TEXT_BYTES)
}

fn read_text_up_to(path: &Path, what: &str, max: usize) -> Result<String, Box<Diagnostic>> {
    let file = path.display().to_string();
    let fail = |msg: String| Box::new(Diagnostic::new(&file, "", msg));
    let cannot = |e: std::io::Error| fail(format!("cannot read the {what} file: {e}"));
    let mut f = std::fs::File::open(path).map_err(cannot)?;
    let mut bytes = Vec::new();
    // Bytes before `valid` are UTF-8 checked; after it, at most the
    // start of a character cut by the chunk's end.
    let mut valid = 0;
    loop {
        let read = (&mut f)
            .take(CHUNK as u64)
            .read_to_end(&mut bytes)
            .map_err(cannot)?;
        let end = read == 0;
        match std::str::from_utf8(&bytes[valid..]) {
            Ok(_) => valid = bytes.len(),
            Err(e) if e.error_len().is_none() && !end => valid += e.valid_up_to(),
            Err(e) => {
                let at = valid + e.valid_up_to();
                let line = bytes[..at].iter().filter(|b| **b == b'\n').count() + 1;
                return Err(fail(format!(
                    "the {what} file is not UTF-8 text: byte 0x{:02x} at line {line} (byte offset {at}) is not part of a UTF-8 character",
                    bytes.get(at).copied().unwrap_or_default()
                )));
            }
        }
        if end {
            break;
        }
        if bytes.len() > max {
            return Err(fail(format!(
                "the {what} file is larger than {} MiB, the most weft reads (is it a model file?)",
                max >> 20
            )));
        }
        budget::check_now(&file)?;
    }
    // Validated chunk by chunk above.
    String::from_utf8(bytes).map_err(|e| fail(format!("the {what} file is not UTF-8 text: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(name: &str, bytes: &[u8]) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("weft-read-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join(name);
        std::fs::write(&p, bytes).unwrap();
        p
    }

    #[test]
    fn text_across_chunks_is_read_whole() {
        // A three-byte character cut by the first chunk's end.
        let mut bytes = vec![b' '; CHUNK - 1];
        bytes.extend("€\n{}".as_bytes());
        let p = file("cut.json", &bytes);
        assert_eq!(read_text(&p, "model").unwrap().as_bytes(), &bytes[..]);
        // A bad byte in the second chunk, named by its offset in the file.
        bytes.extend(b"\n\xc0");
        let p = file("cut-bad.json", &bytes);
        let e = read_text(&p, "model").unwrap_err().to_string();
        let at = format!("byte 0xc0 at line 3 (byte offset {})", bytes.len() - 1);
        assert!(e.contains(&at), "{e}");
        let p = file("empty.json", b"");
        assert_eq!(read_text(&p, "model").unwrap(), "");
    }

    #[test]
    fn a_bad_byte_is_named_by_line_and_offset() {
        let p = file("bad.json", b"{\n\"name\": \"x\xff\"}");
        let e = read_text(&p, "model").unwrap_err().to_string();
        assert!(e.contains("byte 0xff at line 2 (byte offset 12)"), "{e}");
        // A character cut by the end of the file.
        let p = file("cut-end.json", "{}€".as_bytes().split_last().unwrap().1);
        let e = read_text(&p, "model").unwrap_err().to_string();
        assert!(e.contains("byte 0xe2 at line 1 (byte offset 2)"), "{e}");
    }

    #[test]
    fn streams_are_refused_without_reading_them_to_the_end() {
        let e = read_text(Path::new("/dev/urandom"), "model")
            .unwrap_err()
            .to_string();
        assert!(e.contains("not UTF-8 text"), "{e}");
        // Zeros are UTF-8: refused at the size limit (a small one here).
        let e = read_text_up_to(Path::new("/dev/zero"), "model", 4 * CHUNK)
            .unwrap_err()
            .to_string();
        assert!(e.contains("larger than 4 MiB"), "{e}");
    }
}
