//! The Windows registry writes of `install`: the default value of an `HKEY_CURRENT_USER` key
//! set to a manifest path, through `reg.exe` (no extra dependency). The key paths themselves
//! come from the platform-neutral [`crate::browsers::locations::registry_keys`]. Elsewhere these
//! operations are refused: no other platform has a registry to write.

use super::InstallError;

#[cfg(windows)]
fn reg(args: &[&str]) -> Result<std::process::Output, String> {
    std::process::Command::new("reg").args(args).output().map_err(|e| format!("cannot run reg.exe: {e}"))
}

/// The key's default value, `None` when the key or the value is absent.
#[cfg(windows)]
pub fn read_default(key: &str) -> Result<Option<String>, InstallError> {
    let full = format!(r"HKCU\{key}");
    let out = reg(&["query", &full, "/ve"])
        .map_err(|reason| InstallError::Registry { key: key.to_owned(), reason })?;
    if !out.status.success() {
        return Ok(None);
    }
    let text = String::from_utf8_lossy(&out.stdout);
    Ok(text.lines().find_map(|line| line.split_once("REG_SZ").map(|(_, v)| v.trim().to_owned())))
}

#[cfg(windows)]
pub fn write_default(key: &str, value: &str) -> Result<(), InstallError> {
    let full = format!(r"HKCU\{key}");
    let out = reg(&["add", &full, "/ve", "/t", "REG_SZ", "/d", value, "/f"])
        .map_err(|reason| InstallError::Registry { key: key.to_owned(), reason })?;
    if out.status.success() {
        Ok(())
    } else {
        Err(InstallError::Registry {
            key: key.to_owned(),
            reason: String::from_utf8_lossy(&out.stderr).trim().to_owned(),
        })
    }
}

/// Puts back the value a key had before install, or deletes the key when it had none.
#[cfg(windows)]
pub fn restore(key: &str, previous: Option<&str>) -> Result<(), String> {
    match previous {
        Some(v) => write_default(key, v).map_err(|e| e.to_string()),
        None => {
            let out = reg(&["delete", &format!(r"HKCU\{key}"), "/f"])?;
            if out.status.success() {
                Ok(())
            } else {
                Err(String::from_utf8_lossy(&out.stderr).trim().to_owned())
            }
        }
    }
}

#[cfg(not(windows))]
pub fn read_default(_key: &str) -> Result<Option<String>, InstallError> {
    Ok(None)
}

#[cfg(not(windows))]
pub fn write_default(key: &str, _value: &str) -> Result<(), InstallError> {
    Err(InstallError::Registry {
        key: key.to_owned(),
        reason: "the registry exists only on Windows".to_owned(),
    })
}

#[cfg(not(windows))]
pub fn restore(key: &str, _previous: Option<&str>) -> Result<(), String> {
    Err(format!("HKCU\\{key}: the registry exists only on Windows"))
}
