//! Just enough of the zip format (PKWARE APPNOTE.TXT 4.3.7 local header, 4.3.12 central
//! directory, 4.3.16 end of central directory) to read a HAP's stored entries. The fake hvigorw
//! stores every entry uncompressed, and hap-sign-tool keeps each entry's method.

pub struct Zip {
    pub central_directory_offset: usize,
    entries: Vec<Entry>,
}

struct Entry {
    name: String,
    method: u16,
    size: usize,
    local_header: usize,
}

fn u16_at(b: &[u8], at: usize) -> Option<usize> {
    Some(u16::from_le_bytes(b.get(at..at + 2)?.try_into().ok()?) as usize)
}

fn u32_at(b: &[u8], at: usize) -> Option<usize> {
    Some(u32::from_le_bytes(b.get(at..at + 4)?.try_into().ok()?) as usize)
}

impl Zip {
    pub fn parse(bytes: &[u8]) -> Result<Zip, String> {
        let search_from = bytes.len().saturating_sub(22 + 65535);
        let end = (search_from..bytes.len().saturating_sub(21))
            .rev()
            .find(|&at| bytes[at..].starts_with(b"PK\x05\x06"))
            .ok_or("not a zip: no end of central directory")?;
        let count = u16_at(bytes, end + 10).ok_or("a truncated end record")?;
        let offset = u32_at(bytes, end + 16).ok_or("a truncated end record")?;
        let mut entries = Vec::with_capacity(count);
        let mut at = offset;
        for _ in 0..count {
            if !bytes.get(at..).is_some_and(|b| b.starts_with(b"PK\x01\x02")) {
                return Err("a broken central directory".into());
            }
            let field = |rel| u16_at(bytes, at + rel).ok_or("a truncated central directory");
            let (name_len, extra_len, comment_len) = (field(28)?, field(30)?, field(32)?);
            let name = bytes.get(at + 46..at + 46 + name_len).ok_or("a truncated name")?;
            entries.push(Entry {
                name: String::from_utf8_lossy(name).into_owned(),
                method: field(10)? as u16,
                size: u32_at(bytes, at + 20).ok_or("a truncated entry")?,
                local_header: u32_at(bytes, at + 42).ok_or("a truncated entry")?,
            });
            at += 46 + name_len + extra_len + comment_len;
        }
        Ok(Zip { central_directory_offset: offset, entries })
    }

    /// The bytes of a stored entry; None when it is missing or compressed.
    pub fn entry<'a>(&self, bytes: &'a [u8], name: &str) -> Option<&'a [u8]> {
        let entry = self.entries.iter().find(|e| e.name == name && e.method == 0)?;
        let header = entry.local_header;
        if !bytes.get(header..)?.starts_with(b"PK\x03\x04") {
            return None;
        }
        let data = header + 30 + u16_at(bytes, header + 26)? + u16_at(bytes, header + 28)?;
        bytes.get(data..data + entry.size)
    }
}
