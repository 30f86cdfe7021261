//! The shell syntax the analysis works on.
//!
//! The parser's concrete tree is normalised into this small tree first, so
//! that the analysis does not depend on the grammar's quirks (a here-document
//! that the grammar attaches to a whole list, a pipeline that continues after
//! a here-document operator, backquotes that need a second parse).

/// A sequence of statements run one after the other (`;`, newline, `&`).
#[derive(Debug, Clone, Default)]
pub(crate) struct List {
    pub items: Vec<Item>,
}

/// One statement of a list.
#[derive(Debug, Clone)]
pub(crate) struct Item {
    pub node: Node,
    /// Followed by `&`: it runs in the background, in a subshell.
    pub background: bool,
}

/// A statement.
#[derive(Debug, Clone)]
pub(crate) enum Node {
    /// A simple command (possibly with no words: only assignments or redirects).
    Simple(Simple),
    /// `a | b |& c`: each stage runs in its own subshell.
    Pipeline(Vec<Node>),
    /// `a && b || c`.
    AndOr(Box<Node>, Vec<(AndOrOp, Node)>),
    /// `( list )`.
    Subshell(List),
    /// `{ list; }`, and the bodies of `if`, `while`, `for`, `case`, ...: the
    /// parts run in the current shell, some of them conditionally.
    Compound {
        /// The words a compound command expands itself (`for x in WORDS`,
        /// `case WORD in PATTERNS`), analysed for substitutions only.
        words: Vec<Word>,
        /// The bodies, in source order.
        bodies: Vec<List>,
        /// True for `{ ..; }`, whose body always runs.
        plain: bool,
        /// True for loops, whose bodies may run many times.
        looped: bool,
        /// The variables the command itself assigns (`for NAME in ..`);
        /// `None` when it may assign any (arithmetic `for ((..))`).
        binds: Option<Vec<String>>,
    },
    /// `name() { body }`.
    Function { name: String, body: Box<Node> },
    /// A compound command with redirects (`{ ..; } > f`, `while ..; done < f`).
    Redirected(Box<Node>, Vec<Redirect>),
    /// `(( expr ))`, `[[ expr ]]`-free arithmetic: only its substitutions run.
    Arith(Vec<Word>),
}

/// `&&` or `||`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum AndOrOp {
    And,
    Or,
}

/// A simple command.
#[derive(Debug, Clone, Default)]
pub(crate) struct Simple {
    pub assigns: Vec<Assign>,
    pub words: Vec<Word>,
    pub redirects: Vec<Redirect>,
    /// The source text, for explanations.
    pub text: String,
}

/// `NAME=value` before a command, alone, or as an argument of `export`.
#[derive(Debug, Clone)]
pub(crate) struct Assign {
    pub name: String,
    pub value: Vec<Word>,
    /// Written as an array's: `NAME=(..)`, `NAME+=(..)` or `NAME[SUB]=..`.
    pub array: bool,
}

/// A word as written: its parts after the parser split quoting and expansions.
#[derive(Debug, Clone, Default)]
pub(crate) struct Word {
    pub parts: Vec<Part>,
    /// Command and process substitutions anywhere inside the word; they run
    /// whatever the word is used for.
    pub subs: Vec<Sub>,
    /// Places inside the word where bash evaluates text as code of another
    /// kind (arithmetic, an indirect name, a prompt string); they too run
    /// whatever the word is used for.
    pub evals: Vec<Eval>,
    /// The source text of the word.
    pub text: String,
}

/// Text that bash evaluates when it expands a word, other than a command
/// substitution: an array subscript or an arithmetic expression evaluates
/// the variables it names, recursively, and one whose value holds
/// `a[$(cmd)]` runs `cmd`. Each is checked against the variables followed
/// where the word is expanded (`walk::evaluate`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Eval {
    /// An arithmetic expression as written: `$((..))`, `$[..]`, `((..))`,
    /// the header of `for ((..))`, an indexed array's subscript, the offset
    /// and length of `${x:..:..}`.
    Arith(String),
    /// `${!NAME}`: the value of `NAME` is expanded as a parameter name (and
    /// its subscript evaluated).
    Indirect(String),
    /// `${NAME@P}`: the value of `NAME` is expanded as a prompt, which runs
    /// the substitutions in it.
    Prompt(String),
}

/// A piece of a word.
#[derive(Debug, Clone)]
pub(crate) enum Part {
    /// Literal text; `quoted` text has no glob, tilde or brace meaning.
    Lit { text: String, quoted: bool },
    /// `$NAME` or `${NAME}`; `quoted` inside double quotes, where its
    /// value is neither split into words nor globbed.
    Param { name: String, quoted: bool },
    /// Any other expansion (`${x:-y}`, `$(..)`, `<(..)`): its value cannot
    /// be known.
    Dynamic,
    /// An arithmetic expansion (`$((..))`, `$[..]`): an integer whose
    /// digits are not known, plain wherever it is evaluated again.
    Number,
}

/// A command or process substitution.
#[derive(Debug, Clone)]
pub(crate) struct Sub {
    pub list: List,
    pub kind: SubKind,
    /// Redirects of `$(< file)`.
    pub redirects: Vec<Redirect>,
}

/// Which kind of substitution.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SubKind {
    /// `$(..)` or backquotes: the output becomes text.
    Command,
    /// `<(..)`: a file name the command reads from.
    ProcessRead,
    /// `>(..)`: a file name the command writes to.
    ProcessWrite,
}

/// A redirect.
#[derive(Debug, Clone)]
pub(crate) struct Redirect {
    /// The operator as written, without the descriptor (`>`, `>>`, `&>`, `<<`).
    pub op: String,
    pub target: RedirTarget,
    /// The descriptor written before the operator (`3` in `3>&1`), when
    /// one is.
    pub fd: Option<u32>,
}

/// What a redirect points at.
#[derive(Debug, Clone)]
pub(crate) enum RedirTarget {
    /// A file name (or a descriptor for `>&`, `<&`).
    Word(Word),
    /// A here-document: `body` is its text; `dynamic` when the delimiter
    /// was unquoted and the body holds expansions, so its text is only known
    /// when it runs.
    Heredoc {
        body: String,
        dynamic: bool,
        subs: Vec<Sub>,
        evals: Vec<Eval>,
    },
    /// A here-string (`<<< word`).
    HereString(Word),
}
