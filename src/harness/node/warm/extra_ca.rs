//! `NODE_EXTRA_CA_CERTS` for a warm worker: only the certificates node does not bundle.
//!
//! Node 20 reads the file `NODE_EXTRA_CA_CERTS` names at its start, before any JavaScript, and
//! then builds its root store at once: its ~145 bundled roots and every certificate of the
//! file, at about 0.3 ms each. Machines and CI images often name the whole system bundle
//! (`/etc/ssl/certs/ca-certificates.crt`), mostly the same Mozilla roots node bundles: on the
//! machines of benches/README.md ("Warm workers, seventh pass") `node -e 0` takes 142 ms with
//! it, 102 ms with only the 22 certificates node lacks, 51 ms without. A warm worker's start
//! is paid once a job per run, on the run's critical path (fast-uri: a second worker).
//!
//! So a worker is given a file of the certificates in the named one that node does not bundle
//! already: node trusts the union of both, which is the same set. When it bundles them all, the
//! worker is given an empty name, which node reads as none: no store is built at its start (51 ms
//! there), and its bundled roots are what it trusts, as with the named file. The first worker of a
//! process to need that file writes it (`TAPLINE_WARM_EXTRA_CA_OUT`: it reads node's bundled roots,
//! and writes it only when every PEM block of the named file is a certificate node parses and
//! node's flags keep the bundled store); later workers start with it, and the driver puts the
//! original name back in `process.env` before the first file (`TAPLINE_WARM_EXTRA_CA`), so a test
//! and its subprocesses see the variable they were given. The file lies in tapline's own temp
//! folder, which only this user may write ([`crate::harness::hooks::hooks_dir`]): whoever could change
//! it could change the hooks that run inside every test already. The file's name holds what the
//! answer depends on: the named file (path, inode, size, time), the node binary (path, inode, size,
//! time; another node bundles other roots), node's flags and `NODE_OPTIONS` (`--use-openssl-ca`
//! trusts another store).
use std::ffi::OsString;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::MetadataExt;
use std::path::Path;

const VAR: &str = "NODE_EXTRA_CA_CERTS";

/// The variables a worker started in `cwd` with `argv` (node and its flags) gets after the
/// run's, for its extra CA certificates (`get` reads a variable as the worker sees it): none
/// when the run names no file (or one that cannot be read: node then warns as it would for the
/// file alone).
pub(super) fn vars(
    dir: &Path,
    argv: &[OsString],
    cwd: &Path,
    get: &dyn Fn(&str) -> Option<OsString>,
) -> Vec<(OsString, OsString)> {
    let Some(original) = get(VAR).filter(|v| !v.is_empty()) else {
        return Vec::new();
    };
    let path = get("PATH");
    let Some(node) = argv
        .first()
        .and_then(|program| crate::util::which::find_in(program, path.as_deref(), cwd))
    else {
        return Vec::new();
    };
    let (Some(file), Some(binary)) = (identity(&cwd.join(&original)), identity(&node)) else {
        return Vec::new();
    };
    let mut said = Vec::new();
    for part in [original.as_os_str(), node.as_os_str()]
        .into_iter()
        .chain(argv.iter().skip(1).map(OsString::as_os_str))
    {
        said.extend_from_slice(part.as_bytes());
        said.push(0);
    }
    // Apart from the flags: NODE_OPTIONS is one word.
    said.push(1);
    said.extend_from_slice(get("NODE_OPTIONS").unwrap_or_default().as_bytes());
    said.push(0);
    said.extend_from_slice(file.as_bytes());
    said.extend_from_slice(binary.as_bytes());
    let reduced = dir.join(format!("extra-ca-{:016x}.pem", crate::util::fnv1a(&said)));
    if let Some(meta) = std::fs::metadata(&reduced).ok().filter(|m| m.is_file()) {
        // Nothing node lacks: an empty name, with which node builds no store at its start.
        let value = if meta.len() == 0 {
            OsString::new()
        } else {
            reduced.into_os_string()
        };
        vec![
            (VAR.into(), value),
            ("TAPLINE_WARM_EXTRA_CA".into(), original),
        ]
    } else if first_to_ask(&reduced) {
        vec![("TAPLINE_WARM_EXTRA_CA_OUT".into(), reduced.into_os_string())]
    } else {
        Vec::new()
    }
}

/// Whether no worker of this process was asked to write `reduced` yet: one is enough (it
/// costs that worker about 20 ms, paid again by each run of a fresh CI machine).
fn first_to_ask(reduced: &Path) -> bool {
    static ASKED: std::sync::Mutex<Vec<std::path::PathBuf>> = std::sync::Mutex::new(Vec::new());
    let Ok(mut asked) = ASKED.lock() else {
        return false;
    };
    if asked.iter().any(|p| p == reduced) {
        return false;
    }
    asked.push(reduced.to_owned());
    true
}

/// What changes when a file is replaced or rewritten: its device, inode, size and time.
fn identity(path: &Path) -> Option<String> {
    let m = std::fs::metadata(path).ok()?;
    Some(format!(
        "{}:{}:{}:{}.{};",
        m.dev(),
        m.ino(),
        m.size(),
        m.mtime(),
        m.mtime_nsec()
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    /// A worker's command in `dir` with the run's `env`, as the pool starts it.
    struct Key {
        argv: Vec<OsString>,
        cwd: PathBuf,
    }

    fn key(dir: &Path, argv: &[&str]) -> Key {
        Key {
            argv: argv.iter().map(OsString::from).collect(),
            cwd: dir.to_owned(),
        }
    }

    /// [`vars`] as the pool asks it: the run's `env` over the process's.
    fn asked_of(dir: &Path, k: &Key, env: &[(OsString, OsString)]) -> Vec<(OsString, OsString)> {
        let get = |name: &str| {
            (env.iter().find(|(k, _)| k == name))
                .map(|(_, v)| v.clone())
                .or_else(|| std::env::var_os(name))
        };
        vars(dir, &k.argv, &k.cwd, &get)
    }

    fn node_in(dir: &Path) -> PathBuf {
        use std::os::unix::fs::PermissionsExt;
        let node = dir.join("node");
        std::fs::write(&node, "#!/bin/sh\n").expect("write node");
        std::fs::set_permissions(&node, std::fs::Permissions::from_mode(0o755)).expect("chmod");
        node
    }

    #[test]
    fn a_worker_asks_for_the_reduced_file_then_starts_with_it_and_the_name_put_back() {
        let dir = tempfile::tempdir().expect("tempdir");
        let node = node_in(dir.path());
        let bundle = dir.path().join("bundle.pem");
        std::fs::write(&bundle, "x").expect("write bundle");
        let env = vec![(OsString::from(VAR), bundle.clone().into_os_string())];
        let k = key(dir.path(), &[node.to_str().expect("utf-8")]);
        let first = asked_of(dir.path(), &k, &env);
        assert_eq!(first.len(), 1);
        assert_eq!(first[0].0, "TAPLINE_WARM_EXTRA_CA_OUT");
        let reduced = PathBuf::from(&first[0].1);
        assert!(
            asked_of(dir.path(), &k, &env).is_empty(),
            "one worker is asked"
        );
        std::fs::write(&reduced, "-----BEGIN CERTIFICATE-----\n").expect("write reduced");
        let then = asked_of(dir.path(), &k, &env);
        assert_eq!(then[0].0, VAR);
        assert_eq!(then[0].1, reduced.as_os_str());
        assert_eq!(
            then[1],
            (
                "TAPLINE_WARM_EXTRA_CA".into(),
                bundle.clone().into_os_string()
            )
        );
        std::fs::write(&reduced, "").expect("empty reduced");
        let none = asked_of(dir.path(), &k, &env);
        assert_eq!(none[0], (VAR.into(), OsString::new()), "node lacks nothing");
        assert_eq!(
            none[1],
            ("TAPLINE_WARM_EXTRA_CA".into(), bundle.into_os_string())
        );
    }

    #[test]
    fn another_bundle_node_flag_or_node_options_is_another_file() {
        let dir = tempfile::tempdir().expect("tempdir");
        let node = node_in(dir.path());
        let node = node.to_str().expect("utf-8");
        let bundle = dir.path().join("bundle.pem");
        std::fs::write(&bundle, "x").expect("write bundle");
        let env = vec![(OsString::from(VAR), bundle.clone().into_os_string())];
        let asked =
            |k: &Key, env: &[(OsString, OsString)]| asked_of(dir.path(), k, env)[0].1.clone();
        let plain = asked(&key(dir.path(), &[node]), &env);
        let flagged = asked(&key(dir.path(), &[node, "--use-openssl-ca"]), &env);
        let options = [
            env.clone(),
            vec![("NODE_OPTIONS".into(), "--use-openssl-ca".into())],
        ]
        .concat();
        let opted = asked(&key(dir.path(), &[node]), &options);
        std::fs::write(&bundle, "xy").expect("rewrite bundle");
        let rewritten = asked(&key(dir.path(), &[node]), &env);
        let all = [&plain, &flagged, &opted, &rewritten];
        for (i, a) in all.iter().enumerate() {
            for b in &all[i + 1..] {
                assert_ne!(a, b);
            }
        }
    }

    #[test]
    fn no_bundle_or_an_unreadable_one_changes_nothing() {
        let dir = tempfile::tempdir().expect("tempdir");
        let node = node_in(dir.path());
        let k = key(dir.path(), &[node.to_str().expect("utf-8")]);
        let empty = vec![(OsString::from(VAR), OsString::new())];
        assert!(asked_of(dir.path(), &k, &empty).is_empty());
        let gone = vec![(OsString::from(VAR), OsString::from("/nonexistent/ca.pem"))];
        assert!(asked_of(dir.path(), &k, &gone).is_empty());
    }
}
