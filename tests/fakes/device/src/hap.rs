//! Reading a `.hap` as the device's installer does: a zip whose `module.json` says what the
//! package is, whose `ets/modules.abc` is its code, and — when it is signed — whose HAP signing
//! block sits between the last entry and the central directory.
//!
//! The signing block's layout is hap-sign-tool's (`openharmony/developtools_hapsigner`
//! @13c36036 `hapsigntool/hap_sign_tool_lib/…/hap/sign/SignHap.java` `generateHapSigningBlock`,
//! `…/hap/utils/HapUtils.java`): `count` sub-blocks `{u32 type, u32 length, u32 offset}`, their
//! values, then `u32 count`, `u64 size` (of the whole block), the 16-byte magic (`HAP Sig Block
//! 42` for v2, `<hap sign block>` for v3) and `u32 version`, all little-endian. The signature
//! sub-block (type 0x20000000) holds a PKCS#7 SignedData; the profile sub-block (0x20000002)
//! the signed profile, whose JSON names the certificate the app is signed with.
//!
//! The fake's code (`ets/modules.abc`) is the JSON the fake hvigorw writes from the project's
//! ArkTS (`{"format": "rein-fake-abc/1", "abilities": {NAME: {"onCreateLogs": […]}}}`): what
//! each ability logs when it starts.

use serde_json::{json, Value};

use crate::device::sha256_upper;
use crate::zip::Zip;

const MAGIC_V2: &[u8; 16] = b"HAP Sig Block 42";
const MAGIC_V3: &[u8; 16] = b"<hap sign block>";
const SIGNATURE_BLOCK: u32 = 0x2000_0000;
const PROFILE_BLOCK: u32 = 0x2000_0002;
/// DER of the OID 1.2.840.113549.1.7.2 (PKCS#7 signedData).
const SIGNED_DATA_OID: &[u8] = &[0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x07, 0x02];

/// What the installer learns from a package.
pub struct Hap {
    /// `module.json` as written.
    pub module_json: Value,
    /// The fake code: each ability's onCreate lines.
    pub code: Value,
    /// The signer (the SHA-256 of the certificate the signed profile names, upper-case hex),
    /// or why the package counts as unsigned.
    pub signer: Result<String, String>,
}

/// The package, or why it is none (not a zip, no readable `module.json`).
pub fn read(bytes: &[u8]) -> Result<Hap, String> {
    let zip = Zip::parse(bytes)?;
    let module = zip.entry(bytes, "module.json").ok_or("no module.json")?;
    let module_json: Value = serde_json::from_slice(module).map_err(|e| format!("module.json: {e}"))?;
    let code =
        zip.entry(bytes, "ets/modules.abc").and_then(|abc| serde_json::from_slice(abc).ok()).unwrap_or(json!({}));
    let signer = signing_block(bytes, zip.central_directory_offset).and_then(|block| signer_of(&block));
    Ok(Hap { module_json, code, signer })
}

fn u32_at(bytes: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_le_bytes(bytes.get(at..at + 4)?.try_into().ok()?))
}

/// The sub-blocks `(type, value)` of the signing block ending at the central directory.
fn signing_block(bytes: &[u8], central: usize) -> Result<Vec<(u32, Vec<u8>)>, String> {
    let footer = central.checked_sub(32).and_then(|at| bytes.get(at..central)).ok_or("no signing block")?;
    let magic = &footer[12..28];
    if magic != MAGIC_V2 && magic != MAGIC_V3 {
        return Err("no signing block magic before the central directory".into());
    }
    let count = u32::from_le_bytes(footer[..4].try_into().unwrap()) as usize;
    let size = u64::from_le_bytes(footer[4..12].try_into().unwrap()) as usize;
    let start = central.checked_sub(size).ok_or("the signing block's size is larger than the file")?;
    let block = &bytes[start..central];
    let mut blocks = Vec::new();
    for i in 0..count {
        let (kind, length, offset) = (u32_at(block, i * 12), u32_at(block, i * 12 + 4), u32_at(block, i * 12 + 8));
        let (Some(kind), Some(length), Some(offset)) = (kind, length, offset) else {
            return Err("a truncated sub-block header".into());
        };
        let value =
            block.get(offset as usize..offset as usize + length as usize).ok_or("a sub-block outside the block")?;
        blocks.push((kind, value.to_vec()));
    }
    Ok(blocks)
}

/// The signer: the block must hold a PKCS#7 signature and a signed profile; the profile's
/// certificate (debug: `development-certificate`, release: `distribution-certificate`) is who
/// signed, as the real installer checks them against each other.
fn signer_of(blocks: &[(u32, Vec<u8>)]) -> Result<String, String> {
    let signature = blocks.iter().find(|(k, _)| *k == SIGNATURE_BLOCK).ok_or("no signature sub-block")?;
    if !signature.1.windows(SIGNED_DATA_OID.len()).any(|w| w == SIGNED_DATA_OID) {
        return Err("the signature sub-block holds no PKCS#7 SignedData".into());
    }
    let profile = blocks.iter().find(|(k, _)| *k == PROFILE_BLOCK).ok_or("no profile sub-block")?;
    let json = embedded_json(&profile.1).ok_or("the profile sub-block holds no profile")?;
    let info = &json["bundle-info"];
    let cert = info["development-certificate"].as_str().or(info["distribution-certificate"].as_str());
    let cert = cert.ok_or("the profile names no certificate")?;
    Ok(sha256_upper(cert.trim().as_bytes()))
}

/// The first JSON object inside DER bytes (the signed profile's content is its JSON, verbatim).
fn embedded_json(bytes: &[u8]) -> Option<Value> {
    let start = bytes.windows(2).position(|w| w == b"{\"")?;
    serde_json::Deserializer::from_slice(&bytes[start..]).into_iter::<Value>().next()?.ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A stored zip of `entries`, with `block` between the last entry and the central directory.
    fn zip_with(entries: &[(&str, &[u8])], block: &[u8]) -> Vec<u8> {
        let (mut out, mut central) = (Vec::new(), Vec::new());
        for (name, data) in entries {
            let offset = out.len() as u32;
            out.extend_from_slice(b"PK\x03\x04");
            out.extend_from_slice(&[0u8; 22]);
            out.extend_from_slice(&(name.len() as u16).to_le_bytes());
            out.extend_from_slice(&0u16.to_le_bytes());
            out.extend_from_slice(name.as_bytes());
            out.extend_from_slice(data);
            central.extend_from_slice(b"PK\x01\x02");
            central.extend_from_slice(&[0u8; 16]);
            central.extend_from_slice(&(data.len() as u32).to_le_bytes());
            central.extend_from_slice(&(data.len() as u32).to_le_bytes());
            central.extend_from_slice(&(name.len() as u16).to_le_bytes());
            central.extend_from_slice(&[0u8; 12]);
            central.extend_from_slice(&offset.to_le_bytes());
            central.extend_from_slice(name.as_bytes());
        }
        out.extend_from_slice(block);
        let central_at = out.len() as u32;
        out.extend_from_slice(&central);
        out.extend_from_slice(b"PK\x05\x06");
        out.extend_from_slice(&[0u8; 4]);
        out.extend_from_slice(&(entries.len() as u16).to_le_bytes());
        out.extend_from_slice(&(entries.len() as u16).to_le_bytes());
        out.extend_from_slice(&(central.len() as u32).to_le_bytes());
        out.extend_from_slice(&central_at.to_le_bytes());
        out.extend_from_slice(&0u16.to_le_bytes());
        out
    }

    /// A signing block laid out as SignHap.generateHapSigningBlock writes one.
    fn signing_block(subs: &[(u32, Vec<u8>)], magic: &[u8; 16]) -> Vec<u8> {
        let values: usize = subs.iter().map(|(_, v)| v.len()).sum();
        let size = 12 * subs.len() + values + 4 + 8 + 16 + 4;
        let mut block = Vec::new();
        let mut offset = 12 * subs.len();
        for (kind, value) in subs {
            block.extend_from_slice(&kind.to_le_bytes());
            block.extend_from_slice(&(value.len() as u32).to_le_bytes());
            block.extend_from_slice(&(offset as u32).to_le_bytes());
            offset += value.len();
        }
        subs.iter().for_each(|(_, v)| block.extend_from_slice(v));
        block.extend_from_slice(&(subs.len() as u32).to_le_bytes());
        block.extend_from_slice(&(size as u64).to_le_bytes());
        block.extend_from_slice(magic);
        block.extend_from_slice(&3u32.to_le_bytes());
        block
    }

    const MODULE: &[u8] = br#"{"app": {"bundleName": "com.example.hello"}, "module": {"name": "entry"}}"#;

    #[test]
    fn the_signer_is_the_certificate_the_signed_profile_names() {
        // The profile's JSON as a PKCS#7 carries it: inside DER, verbatim.
        let json = br#"{"type": "debug", "bundle-info": {"development-certificate": "-----BEGIN CERTIFICATE-----\nAB\n-----END CERTIFICATE-----\n"}}"#;
        let profile = [&[0x30, 0x82, 0x02, 0x00][..], json, &[0x00]].concat();
        let mut signature = vec![0x30, 0x82, 0x01, 0x00];
        signature.extend_from_slice(SIGNED_DATA_OID);
        let block = signing_block(&[(PROFILE_BLOCK, profile), (SIGNATURE_BLOCK, signature)], MAGIC_V3);
        let hap = read(&zip_with(&[("module.json", MODULE)], &block)).expect("a package");
        let cert = "-----BEGIN CERTIFICATE-----\nAB\n-----END CERTIFICATE-----";
        assert_eq!(hap.signer, Ok(sha256_upper(cert.as_bytes())));
        assert_eq!(hap.module_json["app"]["bundleName"], "com.example.hello");
    }

    #[test]
    fn a_package_without_a_real_signing_block_is_unsigned() {
        let unsigned = read(&zip_with(&[("module.json", MODULE)], b"")).expect("a package");
        assert!(unsigned.signer.is_err());
        let no_signature = signing_block(&[(PROFILE_BLOCK, b"{}".to_vec())], MAGIC_V2);
        let hap = read(&zip_with(&[("module.json", MODULE)], &no_signature)).unwrap();
        assert_eq!(hap.signer, Err("no signature sub-block".to_string()));
        let not_pkcs7 = signing_block(&[(SIGNATURE_BLOCK, vec![1, 2, 3])], MAGIC_V3);
        assert!(read(&zip_with(&[("module.json", MODULE)], &not_pkcs7)).unwrap().signer.is_err());
        assert!(read(b"not a zip").is_err(), "not a package at all");
    }
}
