//! Programs given to `sed`, `awk`, `jq` and `yq`: what they write, read and
//! run, as far as their text tells.

use super::*;

/// Programs given to `sed` and `awk` can write files and run commands.
pub(super) fn program_checks(name: &str, program: Option<&Arg>, d: &mut Derived) {
    let Some(program) = program else { return };
    let is_sed = matches!(name, "sed" | "gsed");
    let is_awk = matches!(name, "awk" | "gawk" | "mawk" | "nawk" | "busybox-awk");
    if !is_sed && !is_awk {
        return;
    }
    if !program.literal {
        d.unknowns.push(format!(
            "`{name}` program is not literal: `{}`",
            program.text
        ));
        return;
    }
    if is_sed {
        sed_program(&program.text, d);
    } else if let Some(why) = awk_program(&program.text) {
        d.unknowns.push(format!("`{name}` program {why}"));
    }
}

/// Finds what a sed script writes (`w`, `W`, the `s///w` flag), reads
/// (`r`, `R`) and runs (`e`, the `s///e` flag), reading it the way GNU
/// sed 4.9 compiles it (`compile_program` in its `compile.c`), so that no
/// command can hide where a looser reading sees a label, a text or a regex.
///
/// A script is read twice: from its start, and as the rest of an `a`, `i`
/// or `c` text. GNU sed runs each `-e` fragment through the same compiler,
/// and a fragment that ends inside such a text (`-e 'a\'`, `-e 'a x\'`)
/// makes the next fragment start inside it; each fragment reaches here on
/// its own, so both readings are taken and whatever either finds counts.
/// A script GNU sed would refuse, or that this reading does not follow, is
/// an unknown: the reading does not guess.
pub(super) fn sed_program(script: &str, d: &mut Derived) {
    let mut files: Vec<(Access, String)> = Vec::new();
    let mut runs: Vec<&'static str> = Vec::new();
    for continues_text in [false, true] {
        let mut r = SedReader::new(script);
        if let Err(why) = r.program(continues_text) {
            let unknown = if continues_text {
                format!(
                    "sed script cannot be read as the rest of an `a`, `i` or `c` text an earlier `-e` left open: {why}"
                )
            } else {
                format!("sed script cannot be read as GNU sed reads it: {why}")
            };
            d.unknowns.push(unknown);
        }
        for f in r.files {
            if !files.contains(&f) {
                files.push(f);
            }
        }
        for run in r.runs {
            if !runs.contains(&run) {
                runs.push(run);
            }
        }
    }
    for (access, name) in files {
        sed_file(d, access, name);
    }
    d.unknowns.extend(runs.into_iter().map(String::from));
}

/// Why a sed script is not read: a construct GNU sed refuses, or one this
/// reading does not follow.
type SedError = &'static str;

/// One reading of a sed script, a port of GNU sed 4.9's `compile_program`
/// and the readers it calls (`match_slash`, `snarf_char_class`,
/// `read_text`, `read_label`, `read_filename`, `mark_subst_opts`), over
/// bytes as sed reads them: every character that ends or escapes
/// something is ASCII, and a UTF-8 character's bytes never are.
struct SedReader<'a> {
    s: &'a [u8],
    i: usize,
    /// The files `r`, `R`, `w`, `W` and the `w` flag name, in order.
    files: Vec<(Access, String)>,
    /// What runs a command: `e`, the `e` flag.
    runs: Vec<&'static str>,
}

impl<'a> SedReader<'a> {
    fn new(script: &'a str) -> Self {
        SedReader {
            s: script.as_bytes(),
            i: 0,
            files: Vec::new(),
            runs: Vec::new(),
        }
    }

    /// The next byte, `None` at the end (sed's `inchar`).
    fn inchar(&mut self) -> Option<u8> {
        let c = self.s.get(self.i).copied();
        if c.is_some() {
            self.i += 1;
        }
        c
    }

    /// Gives back the byte `inchar` returned (sed's `savchar`).
    fn savchar(&mut self, c: Option<u8>) {
        if c.is_some() {
            self.i = self.i.saturating_sub(1);
        }
    }

    /// The next byte that is not a space or tab (sed's `in_nonblank`).
    fn in_nonblank(&mut self) -> Option<u8> {
        loop {
            let c = self.inchar();
            if !matches!(c, Some(b' ' | b'\t')) {
                return c;
            }
        }
    }

    /// Skips the digits from `c` on (sed's `in_integer`).
    fn in_integer(&mut self, mut c: Option<u8>) {
        while c.is_some_and(|b| b.is_ascii_digit()) {
            c = self.inchar();
        }
        self.savchar(c);
    }

    /// What may follow a command: `;`, a newline, the end, or `}` or `#`
    /// (left for the next command) (sed's `read_end_of_cmd`).
    fn end_of_command(&mut self) -> Result<(), SedError> {
        match self.in_nonblank() {
            c @ Some(b'}' | b'#') => {
                self.savchar(c);
                Ok(())
            }
            None | Some(b'\n' | b';') => Ok(()),
            Some(_) => Err("extra characters after a command"),
        }
    }

    /// A label of `:`, `b`, `t`, `T` or `v`: it ends at a blank, `;`, `}`,
    /// `#` or the end of the line (sed's `read_label`).
    fn label(&mut self) -> Vec<u8> {
        let mut label = Vec::new();
        let mut c = self.in_nonblank();
        while let Some(b) = c {
            if matches!(b, b'\n' | b' ' | b'\t' | b';' | b'}' | b'#') {
                break;
            }
            label.push(b);
            c = self.inchar();
        }
        self.savchar(c);
        label
    }

    /// The file of `r`, `R`, `w`, `W` or the `w` flag: the rest of the
    /// line after blanks, trailing blanks included (sed's
    /// `read_filename`).
    fn filename(&mut self, access: Access) -> Result<(), SedError> {
        let first = self.in_nonblank();
        if matches!(first, None | Some(b'\n')) {
            return Err("a missing file name in `r`, `R`, `w` or `W`");
        }
        let start = self.i.saturating_sub(1);
        let mut end = self.i;
        while let Some(b) = self.inchar() {
            if b == b'\n' {
                break;
            }
            end = self.i;
        }
        let name = self.s.get(start..end).unwrap_or_default();
        self.files
            .push((access, String::from_utf8_lossy(name).into_owned()));
        Ok(())
    }

    /// The text of `a`, `i`, `c` or `e` after its lead-in byte: to the first
    /// newline no backslash escapes. A backslash escapes any byte, a
    /// newline and a backslash included (`x\\` then a newline ends the
    /// text). Whether the text is left open at the end, for the next
    /// `-e` to continue (sed's `read_text` and its `pending_text`).
    fn text(&mut self, leadin: Option<u8>) -> bool {
        if leadin.is_none() {
            return true;
        }
        loop {
            match self.inchar() {
                None | Some(b'\n') => return false,
                Some(b'\\') => {
                    if self.inchar().is_none() {
                        return true;
                    }
                }
                Some(_) => {}
            }
        }
    }

    /// A bracket expression after its `[`, to the `]` that closes it: a
    /// `]` first (after an optional `^`) is a member, and `[:`, `[.`, `[=`
    /// open a class that only its own `:]`, `.]`, `=]` closes. A
    /// delimiter or backslash inside is a member, not an end or escape.
    /// The byte it stopped at: `]`, or a newline or the end, which sed
    /// refuses (sed's `snarf_char_class`).
    fn bracket(&mut self) -> Option<u8> {
        let mut c = self.inchar();
        if c == Some(b'^') {
            c = self.inchar();
        }
        if c == Some(b']') {
            c = self.inchar();
        }
        // 0 outside a class, 1 after its `[`, 2 after the opening `.:=`,
        // 3 after the closing one.
        let mut state = 0;
        let mut delim = 0u8;
        loop {
            match c {
                None | Some(b'\n') => return c,
                Some(b @ (b'.' | b':' | b'=')) => {
                    if state == 1 {
                        delim = b;
                        state = 2;
                        c = self.inchar();
                        continue;
                    } else if state == 2 && b == delim {
                        state = 3;
                        c = self.inchar();
                        continue;
                    }
                }
                Some(b'[') => {
                    if state == 0 {
                        state = 1;
                    }
                    c = self.inchar();
                    continue;
                }
                Some(b']') => {
                    if state == 0 || state == 1 {
                        return c;
                    } else if state == 3 {
                        state = 0;
                    }
                }
                Some(_) => {}
            }
            state &= !1;
            c = self.inchar();
        }
    }

    /// A regex, replacement or `y` part to its closing `delim`: a
    /// backslash escapes the next byte (a newline too), and in a regex a
    /// bracket expression may hold the delimiter. An unescaped newline or
    /// the end is unterminated (sed's `match_slash`).
    fn delimited(&mut self, delim: Option<u8>, regex: bool) -> Result<(), SedError> {
        let Some(delim) = delim.filter(u8::is_ascii) else {
            return Err("a regex delimiter that is missing or not a single-byte character");
        };
        loop {
            match self.inchar() {
                None | Some(b'\n') => return Err("an unterminated regex or replacement"),
                Some(c) if c == delim => return Ok(()),
                Some(b'\\') => {
                    if self.inchar().is_none() {
                        return Err("an unterminated regex or replacement");
                    }
                }
                Some(b'[') if regex => {
                    if self.bracket() != Some(b']') {
                        return Err("an unterminated bracket expression");
                    }
                }
                Some(_) => {}
            }
        }
    }

    /// An address starting at `c`, if it is one: `/RE/` or `\cREc` with
    /// its `I` and `M` flags, `N`, `N~S`, `+N`, `~N`, `$` (sed's
    /// `compile_address`).
    fn address(&mut self, c: Option<u8>) -> Result<bool, SedError> {
        match c {
            Some(b'/' | b'\\') => {
                let delim = if c == Some(b'\\') { self.inchar() } else { c };
                self.delimited(delim, true)?;
                loop {
                    let f = self.in_nonblank();
                    if !matches!(f, Some(b'I' | b'M')) {
                        self.savchar(f);
                        return Ok(true);
                    }
                }
            }
            Some(b) if b.is_ascii_digit() => {
                self.in_integer(c);
                let n = self.in_nonblank();
                if n == Some(b'~') {
                    let step = self.in_nonblank();
                    self.in_integer(step);
                } else {
                    self.savchar(n);
                }
                Ok(true)
            }
            Some(b'+' | b'~') => {
                let step = self.in_nonblank();
                self.in_integer(step);
                Ok(true)
            }
            Some(b'$') => Ok(true),
            _ => Ok(false),
        }
    }

    /// The flags of `s`: `g p N i I m M e`, then `w FILE` to the end of the
    /// line (sed's `mark_subst_opts`).
    fn subst_flags(&mut self) -> Result<(), SedError> {
        loop {
            let c = self.in_nonblank();
            match c {
                Some(b'i' | b'I' | b'm' | b'M' | b'p' | b'g') => {}
                Some(b'e') => self
                    .runs
                    .push("sed `s///e` runs the pattern space as a command"),
                Some(b'w') => return self.filename(Access::Write),
                Some(b) if b.is_ascii_digit() => self.in_integer(c),
                Some(b'}' | b'#') => {
                    self.savchar(c);
                    return Ok(());
                }
                None | Some(b'\n' | b';') => return Ok(()),
                Some(b'\r') if self.inchar() == Some(b'\n') => return Ok(()),
                Some(_) => return Err("an unknown flag of `s`"),
            }
        }
    }

    /// Reads the whole script; `continues_text` starts inside an `a`, `i`
    /// or `c` text an earlier fragment left open. Whether this one leaves
    /// a text open at its end.
    fn program(&mut self, continues_text: bool) -> Result<bool, SedError> {
        let mut open_text = continues_text && self.text(Some(b'\n'));
        loop {
            let mut c = self.inchar();
            while matches!(
                c,
                Some(b';' | b' ' | b'\t' | b'\n' | b'\x0b' | b'\x0c' | b'\r')
            ) {
                c = self.inchar();
            }
            if c.is_none() {
                return Ok(open_text);
            }
            let addressed = self.address(c)?;
            if addressed {
                c = self.in_nonblank();
                if c == Some(b',') {
                    let second = self.in_nonblank();
                    if !self.address(second)? {
                        return Err("an unexpected `,`");
                    }
                    c = self.in_nonblank();
                }
            }
            if c == Some(b'!') {
                c = self.in_nonblank();
                if c == Some(b'!') {
                    return Err("multiple `!`");
                }
            }
            let Some(command) = c else {
                return Err("a missing command");
            };
            open_text = false;
            match command {
                b'#' => while !matches!(self.inchar(), None | Some(b'\n')) {},
                b'v' | b':' | b'b' | b't' | b'T' => {
                    let label = self.label();
                    if command == b':' && (addressed || label.is_empty()) {
                        return Err("a `:` label that is empty or has an address");
                    }
                }
                b'{' => {}
                b'}' => self.end_of_command()?,
                b'e' => {
                    self.runs.push("sed `e` runs a command");
                    let next = self.in_nonblank();
                    if !matches!(next, None | Some(b'\n')) {
                        open_text = self.text_after(next);
                    }
                }
                b'a' | b'i' | b'c' => {
                    let next = self.in_nonblank();
                    if next.is_none() {
                        return Err("`a`, `i` or `c` without a text");
                    }
                    open_text = self.text_after(next);
                }
                b'q' | b'Q' | b'l' | b'L' => {
                    let n = self.in_nonblank();
                    if n.is_some_and(|b| b.is_ascii_digit()) {
                        self.in_integer(n);
                    } else {
                        self.savchar(n);
                    }
                    self.end_of_command()?;
                }
                b'=' | b'd' | b'D' | b'F' | b'g' | b'G' | b'h' | b'H' | b'n' | b'N' | b'p'
                | b'P' | b'z' | b'x' => self.end_of_command()?,
                b'r' | b'R' => self.filename(Access::Read)?,
                b'w' | b'W' => self.filename(Access::Write)?,
                b's' => {
                    let delim = self.inchar();
                    self.delimited(delim, true)?;
                    self.delimited(delim, false)?;
                    self.subst_flags()?;
                }
                b'y' => {
                    let delim = self.inchar();
                    self.delimited(delim, false)?;
                    self.delimited(delim, false)?;
                    self.end_of_command()?;
                }
                _ => return Err("an unknown command"),
            }
        }
    }

    /// The text of `a`, `i`, `c` or `e` from the first byte after the
    /// command's blanks: `\` then the lead-in byte (the newline of the
    /// classic form, or the text's first byte), or the GNU one-line form
    /// whose text starts at that byte.
    fn text_after(&mut self, first: Option<u8>) -> bool {
        if first == Some(b'\\') {
            let leadin = self.inchar();
            self.text(leadin)
        } else {
            self.savchar(first);
            self.text(Some(b'\n'))
        }
    }
}

pub(super) fn sed_file(d: &mut Derived, access: Access, name: String) {
    if name.is_empty() {
        return;
    }
    if matches!(name.as_str(), "/dev/stdout" | "/dev/stderr" | "/dev/stdin") {
        return;
    }
    d.found.push(Found {
        access,
        arg: Arg::lit(name),
        recursive: false,
        by_option: false,
    });
}

/// Why an awk program may do more than read its operands, if it may.
///
/// The program is split into tokens first (strings, regex literals,
/// comments and backslash-newlines taken as awk takes them), and the
/// checks look at tokens, never at raw text: a string or regex cannot
/// hide a `|` or `>` from them, nor show one that is not there, and a
/// comment or line break cannot end a statement early. Where awks read
/// the same text differently (whether a `/` divides or starts a regex
/// after `length`, `getline`, `++` or `if (..)`; a `/` inside a regex's
/// bracket expression), the program is not analysed. The checks are
/// coarse on purpose: any `|` outside a string or regex is a pipe (awk has
/// no other), any `>` between `print`/`printf` and the end of its
/// statement may be a redirection, any `<` after `getline` in its
/// expression may read a file, and any mention of `ARGV` or `ARGC` may
/// change which files awk reads.
pub(super) fn awk_program(program: &str) -> Option<&'static str> {
    let toks = match awk_tokens(program) {
        Ok(t) => t,
        Err(why) => return Some(why),
    };
    for (at, tok) in toks.iter().enumerate() {
        let rest = toks.get(at + 1..).unwrap_or_default();
        match tok {
            AwkTok::Word(w) if w == "system" => return Some("calls `system`"),
            AwkTok::Word(w) if matches!(w.as_str(), "ARGV" | "ARGC" | "SYMTAB") => {
                return Some(
                    "names `ARGV` or `ARGC`, which choose the files it reads (an assignment may add any file)",
                );
            }
            AwkTok::Op(op) if matches!(op.as_str(), "|" | "|&") => {
                return Some("pipes to or from a command");
            }
            AwkTok::Word(w)
                if w == "getline"
                    && awk_statement_has(rest, |t| t.is_op("<") || t.is_op("<="), true) =>
            {
                return Some("reads a file (`getline < file`)");
            }
            AwkTok::Word(w)
                if matches!(w.as_str(), "print" | "printf")
                    && awk_statement_has(
                        rest,
                        |t| t.is_op(">") || t.is_op(">>") || t.is_op(">="),
                        false,
                    ) =>
            {
                return Some("may write a file (`print > file`)");
            }
            _ => {}
        }
    }
    None
}

/// A token of an awk program.
#[derive(Debug, Clone, PartialEq)]
enum AwkTok {
    /// A name: a keyword, a built-in function, a variable or a function.
    Word(String),
    Number,
    Str,
    Regex,
    /// An operator or other punctuation, longest match first.
    Op(String),
    /// A newline that is not escaped.
    Newline,
}

impl AwkTok {
    fn is_op(&self, op: &str) -> bool {
        matches!(self, AwkTok::Op(o) if o == op)
    }
}

/// Whether, in the statement that starts at `toks`, a token meets `hit`
/// before the statement ends: at `;`, `{`, `}` or a newline (one that does
/// not follow `,`, `&&`, `||`, `do`, `else`, `?` or `:`, after which awk
/// goes on) outside parentheses and brackets.
///
/// For `getline` (`in_expression`), also at a `)` or `]` that closes one
/// opened before it (`(getline x) < 0` compares), and a hit counts at any
/// depth. For `print`, a hit counts outside parentheses only: there awks
/// take `>` for a redirection (gawk's `in_parens`, mawk's `paren_cnt`),
/// and inside them (`print (a > b)`) for a comparison; a bracket does not
/// make it one.
///
/// A statement still open at the end of the text counts as a hit: gawk
/// joins `--source` texts with newlines, and the next text may finish it.
fn awk_statement_has(toks: &[AwkTok], hit: impl Fn(&AwkTok) -> bool, in_expression: bool) -> bool {
    let mut parens: i64 = 0;
    let mut brackets: i64 = 0;
    let mut last: Option<&AwkTok> = None;
    let goes_on = |last: Option<&AwkTok>| match last {
        Some(AwkTok::Op(o)) => matches!(o.as_str(), "," | "&&" | "||" | "?" | ":"),
        Some(AwkTok::Word(w)) => matches!(w.as_str(), "do" | "else"),
        _ => false,
    };
    for t in toks {
        let outside = parens <= 0 && brackets <= 0;
        match t {
            AwkTok::Op(o) if o == "(" => parens += 1,
            AwkTok::Op(o) if o == "[" => brackets += 1,
            AwkTok::Op(o) if o == ")" || o == "]" => {
                if o == ")" {
                    parens -= 1;
                } else {
                    brackets -= 1;
                }
                if in_expression && (parens < 0 || brackets < 0) {
                    return false;
                }
            }
            AwkTok::Op(o) if outside && matches!(o.as_str(), ";" | "{" | "}") => return false,
            AwkTok::Newline if outside && !goes_on(last) => return false,
            _ => {}
        }
        if hit(t) && (in_expression || parens <= 0) {
            return true;
        }
        if *t != AwkTok::Newline {
            last = Some(t);
        }
    }
    parens != 0 || brackets != 0 || goes_on(last)
}

/// What a `/` after the previous token is.
#[derive(Clone, Copy, PartialEq)]
enum AwkSlash {
    /// After an operand (a name, number, string, regex, `)`, `]`): a
    /// division.
    Divides,
    /// After an operator, a keyword, a newline or the start: a regex.
    Regex,
    /// After `length`, `getline`, `++`, `--`, another built-in's name or
    /// the `)` of `if`/`while`/`for`: awks differ (mawk's lexer takes a
    /// regex after `length` and a division after `if (..)`, gawk's grammar
    /// the other way round).
    Unsure,
}

/// Names after which a `/` starts a regex: keywords that an expression or
/// statement follows.
const AWK_KEYWORDS: &[&str] = &[
    "BEGIN",
    "END",
    "BEGINFILE",
    "ENDFILE",
    "function",
    "func",
    "if",
    "else",
    "while",
    "for",
    "do",
    "break",
    "continue",
    "next",
    "nextfile",
    "exit",
    "return",
    "delete",
    "in",
    "print",
    "printf",
];

/// Built-in functions (POSIX, gawk, mawk, busybox): a `/` right after one
/// is not something awks agree on.
const AWK_BUILTINS: &[&str] = &[
    "length",
    "getline",
    "substr",
    "index",
    "split",
    "sub",
    "gsub",
    "match",
    "sprintf",
    "sin",
    "cos",
    "atan2",
    "exp",
    "log",
    "sqrt",
    "int",
    "rand",
    "srand",
    "tolower",
    "toupper",
    "system",
    "close",
    "fflush",
    "gensub",
    "strftime",
    "systime",
    "mktime",
    "and",
    "or",
    "xor",
    "lshift",
    "rshift",
    "compl",
    "asort",
    "asorti",
    "patsplit",
    "isarray",
    "typeof",
    "strtonum",
    "dcgettext",
    "dcngettext",
    "bindtextdomain",
    "mkbool",
];

/// Operators of more than one character, longest first.
const AWK_LONG_OPS: &[&str] = &[
    "**=", "||", "&&", "|&", "==", "!=", "<=", ">=", ">>", "++", "--", "+=", "-=", "*=", "%=",
    "^=", "**", "!~",
];

/// Splits an awk program into tokens, or says why it cannot be split the
/// way every awk would.
fn awk_tokens(program: &str) -> Result<Vec<AwkTok>, &'static str> {
    let s: Vec<char> = program.chars().collect();
    let mut toks = Vec::new();
    // For each open `(`: whether it opened the condition of `if`, `while`
    // or `for`.
    let mut parens: Vec<bool> = Vec::new();
    let mut slash = AwkSlash::Regex;
    let mut i = 0;
    while let Some(&c) = s.get(i) {
        let next = s.get(i + 1).copied();
        match c {
            ' ' | '\t' | '\r' | '\x0b' | '\x0c' => {
                i += 1;
                continue;
            }
            // A backslash-newline joins lines.
            '\\' if next == Some('\n') => {
                i += 2;
                continue;
            }
            '\\' if next == Some('\r') && s.get(i + 2) == Some(&'\n') => {
                i += 3;
                continue;
            }
            '\\' => return Err("has a backslash outside a string or regex, which is not analysed"),
            '#' => {
                while s.get(i).is_some_and(|&c| c != '\n') {
                    i += 1;
                }
                continue;
            }
            '@' => {
                return Err(
                    "uses `@` (`@load`, `@include`, an indirect call): code that is not analysed",
                );
            }
            '\n' => {
                toks.push(AwkTok::Newline);
                slash = AwkSlash::Regex;
                i += 1;
            }
            '"' => {
                i += 1;
                loop {
                    match s.get(i) {
                        None | Some('\n') => {
                            return Err("has a string that does not end on its line");
                        }
                        Some('\\') => i += 2,
                        Some('"') => break,
                        Some(_) => i += 1,
                    }
                }
                i += 1;
                toks.push(AwkTok::Str);
                slash = AwkSlash::Divides;
            }
            '/' => match slash {
                AwkSlash::Unsure => {
                    return Err(
                        "has a `/` that awks read differently (a division or a regex), which is not analysed",
                    );
                }
                AwkSlash::Divides => {
                    let op = if next == Some('=') { "/=" } else { "/" };
                    i += op.len();
                    toks.push(AwkTok::Op(op.into()));
                    slash = AwkSlash::Regex;
                }
                AwkSlash::Regex => {
                    i = awk_regex_end(&s, i + 1)?;
                    toks.push(AwkTok::Regex);
                    slash = AwkSlash::Divides;
                }
            },
            _ if c.is_ascii_digit() || (c == '.' && next.is_some_and(|n| n.is_ascii_digit())) => {
                while s
                    .get(i)
                    .is_some_and(|&c| c.is_ascii_alphanumeric() || c == '.')
                {
                    i += 1;
                }
                toks.push(AwkTok::Number);
                slash = AwkSlash::Divides;
            }
            _ if c.is_ascii_alphabetic() || c == '_' => {
                let start = i;
                while s
                    .get(i)
                    .is_some_and(|&c| c.is_ascii_alphanumeric() || c == '_')
                {
                    i += 1;
                }
                let word: String = s[start..i].iter().collect();
                slash = if AWK_KEYWORDS.contains(&word.as_str()) {
                    AwkSlash::Regex
                } else if AWK_BUILTINS.contains(&word.as_str()) {
                    AwkSlash::Unsure
                } else {
                    AwkSlash::Divides
                };
                toks.push(AwkTok::Word(word));
            }
            _ => {
                let rest: String = s[i..s.len().min(i + 3)].iter().collect();
                let op = AWK_LONG_OPS
                    .iter()
                    .find(|op| rest.starts_with(**op))
                    .map_or_else(|| c.to_string(), |op| op.to_string());
                i += op.chars().count();
                slash = match op.as_str() {
                    "(" => {
                        let header = matches!(
                            toks.last(),
                            Some(AwkTok::Word(w)) if matches!(w.as_str(), "if" | "while" | "for")
                        );
                        parens.push(header);
                        AwkSlash::Regex
                    }
                    ")" => {
                        if parens.pop().unwrap_or(false) {
                            AwkSlash::Unsure
                        } else {
                            AwkSlash::Divides
                        }
                    }
                    "]" => AwkSlash::Divides,
                    "++" | "--" => AwkSlash::Unsure,
                    _ => AwkSlash::Regex,
                };
                toks.push(AwkTok::Op(op));
            }
        }
    }
    Ok(toks)
}

/// Where the regex literal whose text starts at `start` (after its `/`)
/// ends: just past its closing `/`. A backslash escapes the next
/// character. gawk and mawk do not end a regex at a `/` inside a bracket
/// expression (`/[/]/`), other awks do: where the two readings differ, the
/// program is not analysed. A newline or the end before the close is an
/// error awk reports.
fn awk_regex_end(s: &[char], start: usize) -> Result<usize, &'static str> {
    // The plain reading: the first unescaped `/`.
    let mut plain = None;
    let mut i = start;
    while let Some(&c) = s.get(i) {
        match c {
            '\n' => break,
            '\\' => i += 2,
            '/' => {
                plain = Some(i + 1);
                break;
            }
            _ => i += 1,
        }
    }
    // gawk's reading: a `/` inside `[...]` does not end it; a `]` first
    // in the brackets (after an optional `^`) is a member, and `[:`
    // opens a class inside them.
    let mut bracketed = None;
    let mut depth = 0usize;
    let mut open = 0usize;
    let mut i = start;
    while let Some(&c) = s.get(i) {
        match c {
            '\n' => break,
            '\\' => {
                i += 2;
                continue;
            }
            '[' if depth == 0 || s.get(i + 1) == Some(&':') => {
                depth += 1;
                if depth == 1 {
                    open = i;
                }
            }
            ']' if depth > 0 => {
                let first = i == open + 1 || (i == open + 2 && s.get(open + 1) == Some(&'^'));
                if !first {
                    depth -= 1;
                }
            }
            '/' if depth == 0 => {
                bracketed = Some(i + 1);
                break;
            }
            _ => {}
        }
        i += 1;
    }
    match (plain, bracketed) {
        (Some(a), Some(b)) if a == b => Ok(a),
        (None, None) => Err("has a regex that does not end on its line"),
        _ => Err(
            "has a `/` inside a regex's bracket expression, where awks end the regex differently",
        ),
    }
}

pub(super) fn yq(spec: &Spec, args: &[Arg], d: &mut Derived) {
    let o = parse_opts(args, spec.short_args, spec.long_args, spec.file_opts);
    file_opts(spec, &o, d);
    let mut operands: &[Arg] = &o.operands;
    if operands
        .first()
        .is_some_and(|a| matches!(a.text.as_str(), "e" | "eval" | "ea" | "eval-all"))
    {
        operands = &operands[1..];
    }
    if o.has(&["-s", "--split-exp"]) {
        d.unknowns
            .push("`yq --split-exp` writes files named by an expression".into());
    }
    if !o.has(&["--from-file"]) {
        if let Some(expr) = operands.first() {
            if words_of(&expr.text).any(|w| w.starts_with("load")) {
                d.unknowns.push(format!(
                    "`yq` expression reads files it names: `{}`",
                    expr.text
                ));
            }
        }
        operands = operands.get(1..).unwrap_or_default();
    }
    let access = if o.has(&["-i", "--inplace"]) {
        Access::Write
    } else {
        Access::Read
    };
    each(d, access, operands, false);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What a sed script writes and reads (`W name`, `R name`) and
    /// whether anything is unknown.
    fn sed(script: &str) -> (Vec<String>, bool) {
        let mut d = Derived::default();
        sed_program(script, &mut d);
        let files = d
            .found
            .iter()
            .map(|f| {
                let a = if f.access == Access::Write { "W" } else { "R" };
                format!("{a} {}", f.arg.text)
            })
            .collect();
        (files, !d.unknowns.is_empty())
    }

    fn runs(script: &str) -> bool {
        let mut d = Derived::default();
        sed_program(script, &mut d);
        d.unknowns.iter().any(|u| u.contains("runs"))
    }

    #[test]
    fn sed_labels_end_where_gnu_sed_ends_them() {
        // GNU sed's `read_label`: a blank, `;`, `}`, `#` or a newline.
        for script in [
            ":a;e",
            ":a e",
            ":a\ne",
            "b a;:a;e",
            "ta;:a;e",
            ":a\nTa\ne",
            "1{bz};e;:z",
            ":a;s/x*//e",
            "v;e",
            "v 4.2;e",
        ] {
            assert!(runs(script), "{script:?}");
        }
        assert_eq!(sed(":a;w src/pwn").0, ["W src/pwn"]);
        assert_eq!(sed(":a;r .env").0, ["R .env"]);
        assert_eq!(sed("b end;w x\n:end").0, ["W x"]);
        // A label alone is a label.
        assert_eq!(sed(":a;N;$!ba;s/\\n/ /g"), (vec![], false));
    }

    #[test]
    fn sed_bracket_expressions_hold_the_delimiter() {
        for script in [
            "/[/]*/e",
            "s/[/]*$/;/e",
            "/[]/]*/e",
            "/[^]/]*/e",
            "/[[:alpha:]/]*/e",
            "/[[.-.]/]/e",
            "\\%[%]%e",
            "/[\\/]/e",
        ] {
            assert!(runs(script), "{script:?}");
        }
        assert_eq!(sed("/[/]*/w /tmp/x").0, ["W /tmp/x"]);
        assert_eq!(sed("/[/]*/r .env").0, ["R .env"]);
        assert_eq!(sed("s/[/]/x/w out").0, ["W out"]);
        // In a replacement and in `y`, `[` is plain: the delimiter ends.
        assert_eq!(sed("s/a/[/w out").0, ["W out"]);
        assert_eq!(sed("y/[/]/;w out").0, ["W out"]);
        // Escaped delimiters and other delimiters.
        assert_eq!(sed("s/a\\/w/b/g; 3,5d; /re/!p"), (vec![], false));
        assert_eq!(sed("s|a\\|b|x|w out").0, ["W out"]);
        assert_eq!(sed("\\,x,I,+3 w out").0, ["W out"]);
        assert_eq!(sed("0~4r in").0, ["R in"]);
        assert_eq!(sed("0,/x/ r in").0, ["R in"]);
    }

    #[test]
    fn sed_texts_end_at_an_unescaped_newline() {
        // `x\\` ends the text: the escaped backslash is its last byte.
        assert!(runs("a\\\nx\\\\\ne"));
        assert!(runs("i\\\nx\\\\\ne"));
        assert!(runs("c x\\\\\ne"));
        assert!(runs("a\\\\\ne"));
        assert!(runs("a\ne"));
        assert_eq!(sed("a\\\nx\\\\\nr .env").0, ["R .env"]);
        // An escaped newline continues it; `;` and `}` are text.
        assert!(!runs("a\\\nx\\\ne"));
        assert!(!runs("a x; e"));
        assert!(!runs("1{a x}; e\n}"));
        assert_eq!(sed("$a\\"), (vec![], false));
        assert_eq!(sed("1i\\\nheader\n$a\\\nfooter"), (vec![], false));
        // `e` takes its command like a text.
        assert!(runs("1e touch x\\\nw y"));
        assert_eq!(sed("1e touch x\\\nw y").0, Vec::<String>::new());
    }

    #[test]
    fn sed_fragments_may_continue_a_text() {
        // `-e 'a\' -e 'x\\' -e 'e'`: the second continues the text of the
        // first; each is read on its own, from its start and as text.
        let mut d = Derived::default();
        for fragment in ["a\\", "x\\\\", "e"] {
            sed_program(fragment, &mut d);
        }
        assert!(d.unknowns.iter().any(|u| u.contains("runs")), "{d:?}");
        // A fragment read as text and as commands: both count. As text,
        // `x\\` ends and `w out` is a command; as commands, `x\\` is
        // refused, which is unknown.
        assert_eq!(sed("x\\\\\nw out"), (vec!["W out".to_string()], true));
        // As text, `foo\` goes on into `w out`; as commands, `f` is refused.
        assert_eq!(sed("foo\\\nw out"), (vec![], true));
    }

    #[test]
    fn sed_commands_and_flags() {
        assert_eq!(sed("s/a/b/w out.txt").0, ["W out.txt"]);
        assert_eq!(sed("s/a/b/ g 2 p w out").0, ["W out"]);
        assert_eq!(sed("s/a/b/gw a b ").0, ["W a b "]);
        assert_eq!(sed("1R in;W out").0, ["R in;W out"]);
        assert_eq!(sed("/x/{w a\n};r b").0, ["W a", "R b"]);
        assert_eq!(sed("q5;w out").0, ["W out"]);
        assert_eq!(sed("l 3;F;z;=;w out").0, ["W out"]);
        assert_eq!(sed("#w x\nw y").0, ["W y"]);
        assert_eq!(sed("s/a/b/#w x\nw y").0, ["W y"]);
        assert!(runs("s/x/id/me"));
        assert!(runs("1!e"));
        assert!(runs("$ ! e"));
        assert_eq!(sed("w /dev/stdout"), (vec![], false));
    }

    #[test]
    fn sed_scripts_gnu_sed_refuses_are_unknown() {
        for script in [
            "s/a/b",
            "s/[a/b/",
            "/x",
            ":",
            ":a;k",
            "p x",
            "s/a/b/k",
            "w",
            "a",
            "1,",
            "sé/a/b/",
            "s\na\nb\n",
        ] {
            assert!(sed(script).1, "{script:?}");
        }
    }

    #[test]
    fn awk_pipes_and_redirections_are_found_anywhere() {
        for program in [
            // F9: any `|` outside a string or regex is a pipe.
            "BEGIN{ s=\"sh\"; print \"touch M\" | s }",
            "BEGIN{ s=\"sh\"; printf(\"touch M\\n\") | s }",
            "BEGIN{ print \"x\" |& \"sh\" }",
            // F10: a backslash-newline is a blank.
            "BEGIN{ c = \"touch M\"; c|\\\ngetline }",
            // F11: a newline after `,` goes on; a regex may hold `;`.
            "BEGIN{ print \"x\",\n\"y\" > \"M\" }",
            "BEGIN{ print \"x\", # c\n\"y\" > \"M\" }",
            "BEGIN{ print /;/ > \"M\" }",
            "BEGIN{ print \"x\" \\\n > \"M\" }",
            "BEGIN{ print \"x\" >> \"M\" }",
            "{ printf(\"%s\", $0) > $1 }",
            // A `"` in a regex does not open a string.
            "/\"/{ print | \"sh\" } # \"",
            // `getline` into any variable, from a file.
            "BEGIN{ getline a[1] < \".env\"; print a[1] }",
            "BEGIN{ getline $0 < \".env\"; print }",
            "BEGIN{ while ((getline l < \".env\") > 0) print l }",
            "BEGIN{ if (getline l < 0) print l }",
            // F5: ARGV and ARGC choose the files read.
            "BEGIN{ARGV[1]=\".env\";ARGC=2}1",
            "BEGIN{ARGV[ARGC++]=\".env\"}1",
            "BEGIN{ARGV[1]=sprintf(\"%s%s\", \".\", \"env\"); ARGC=2}1",
            "BEGIN{ ARGC = 1 + split(\".env\", ARGV) }1",
            "function f(a){a[1]=\".env\"} BEGIN{f(ARGV);ARGC=2}1",
            "BEGIN{ SYMTAB[\"ARGC\"] = 2 }",
            // gawk's `@`: directives and indirect calls.
            "@load \"filefuncs\"; BEGIN{}",
            "BEGIN{ f = \"system\"; @f(\"id\") }",
            "BEGIN{ system(\"id\") }",
            // An open statement may go on in the next `--source` text.
            "BEGIN{ print \"x\",",
        ] {
            assert!(awk_program(program).is_some(), "{program:?}");
        }
    }

    #[test]
    fn awk_where_awks_differ_is_unknown() {
        for program in [
            // mawk takes `/ 2 /` for a regex after `length`.
            "{ print length / 2 / 1 }",
            "{ getline / 2 }",
            "{ x = i++ / 2 }",
            "{ if (x) /re/ ? a : b }",
            // A `/` inside brackets ends the regex in some awks only.
            "/[/]/ { print }",
            "/[]/]/",
            "/[[:alpha:]/]/",
            "{ print \"a\\\\\" }\"",
            "{ print \"open\n\" }",
            "/open\n/",
            "{ x = a \\ b }",
        ] {
            assert!(awk_program(program).is_some(), "{program:?}");
        }
    }

    #[test]
    fn awk_ordinary_programs_are_analysed() {
        for program in [
            "{print $1}",
            "$3 > 1000 {print $1}",
            "{s+=$1} END {print s}",
            "NR==1 || /x/",
            "NR>=3 && NR<=4",
            "/a|b/ {print}",
            "/a>b;c/ {print}",
            "{ print \"a|b>c\" }",
            "{ print $1/2, $NF / 3, (a) / b, x[1]/2 }",
            "{ n /= 2; print n }",
            "/a\\/b/",
            "/[a-z]+/ && /[]x]/ && /[^]y]/ { print }",
            "BEGIN{while ((getline line) > 0) print line}",
            "{ getline; print }",
            "{ print (a > b) }",
            "{ print $1 # > \"out\"\n}",
            "{ print $1\n}\n$2 > 3",
            "{ if ($1 > 2) print $1; else print $2 }",
            "BEGIN { FS = \":\" } { print $1, $NF }",
            "{ for (i = NF; i > 0; i--) printf \"%s \", $i; print \"\" }",
            "{ gsub(/\\//, \"_\"); print }",
            "{ print length($0) / 2 }",
            "END { print NR }",
        ] {
            assert_eq!(awk_program(program), None, "{program:?}");
        }
    }
}
