//! `find`'s expression read for what it selects by name: for each action
//! (`-exec`, `-print`), the condition on an entry's name under which find
//! evaluates it, in three values (a test the name cannot answer, such as
//! `-size` or `-newer`, is unknown). `find . -name '*.c' -exec cat {} +`
//! reads only what is named `*.c`; `find . -name '*.c' -o -exec cat {} +`
//! reads everything else.
//!
//! Operators as findutils reads them: `( )`, `!`/`-not`, `-a`/`-and` (or
//! nothing), `-o`/`-or`, `,`, binding in that order. The condition of a
//! node: for `A -a B`, B is evaluated when A is true; for `A -o B`, when A
//! is false; for `A , B`, always.

use super::filter::NameTest;
use crate::words::Arg;

/// Nesting deeper than this is not followed: no filter.
const MAX_DEPTH: usize = 64;

/// What the expression says about names.
#[derive(Debug, Default)]
pub(super) struct Selection {
    /// The condition under which each action runs, by the index (into the
    /// arguments given) of the action's first word.
    pub actions: Vec<(usize, NameTest)>,
    /// What find prints as plain names: the condition of its `-print` and
    /// `-print0` actions, or of the whole expression when it has no
    /// action. `None` when it prints something else too (`-printf`,
    /// `-ls`), which is not a list of names.
    pub printed: Option<NameTest>,
}

enum Node {
    Test(NameTest),
    /// An action, by its index; its value.
    Action(usize, NameTest),
    Not(Box<Node>),
    And(Box<Node>, Box<Node>),
    Or(Box<Node>, Box<Node>),
    Comma(Box<Node>, Box<Node>),
}

/// Global options and tests that are always true.
const TRUE_OPTIONS: &[&str] = &[
    "-depth",
    "-d",
    "-xdev",
    "-mount",
    "-noleaf",
    "-daystart",
    "-follow",
    "-ignore_readdir_race",
    "-noignore_readdir_race",
    "-warn",
    "-nowarn",
    "-true",
    "-prune",
];

/// Options and tests that take one word, and whose value the name does
/// not answer (or that are always true).
const ONE_WORD: &[&str] = &[
    "-path",
    "-ipath",
    "-wholename",
    "-iwholename",
    "-regex",
    "-iregex",
    "-xtype",
    "-size",
    "-mtime",
    "-mmin",
    "-atime",
    "-amin",
    "-ctime",
    "-cmin",
    "-perm",
    "-user",
    "-group",
    "-uid",
    "-gid",
    "-links",
    "-inum",
    "-newer",
    "-anewer",
    "-cnewer",
    "-samefile",
    "-fstype",
    "-lname",
    "-ilname",
    "-used",
    "-context",
    "-files0-from",
];

/// Options that take one word and are always true.
const ONE_WORD_TRUE: &[&str] = &["-maxdepth", "-mindepth", "-regextype"];

struct Parser<'a> {
    args: &'a [Arg],
    i: usize,
    depth: usize,
    /// Prints something other than names.
    formatted: bool,
    /// Has an action (so there is no implicit `-print`).
    acts: bool,
    /// Links are followed (`-L`, `-follow`): `-type` tests what they
    /// lead to.
    follows: bool,
}

impl Parser<'_> {
    fn peek(&self) -> Option<&str> {
        self.args.get(self.i).map(|a| a.text.as_str())
    }

    fn comma(&mut self) -> Option<Node> {
        let mut left = self.or()?;
        while self.peek() == Some(",") {
            self.i += 1;
            let right = self.or()?;
            left = Node::Comma(Box::new(left), Box::new(right));
        }
        Some(left)
    }

    fn or(&mut self) -> Option<Node> {
        let mut left = self.and()?;
        while matches!(self.peek(), Some("-o" | "-or")) {
            self.i += 1;
            let right = self.and()?;
            left = Node::Or(Box::new(left), Box::new(right));
        }
        Some(left)
    }

    fn and(&mut self) -> Option<Node> {
        let mut left = self.not()?;
        loop {
            match self.peek() {
                Some("-a" | "-and") => self.i += 1,
                Some("-o" | "-or" | "," | ")") | None => return Some(left),
                Some(_) => {}
            }
            let right = self.not()?;
            left = Node::And(Box::new(left), Box::new(right));
        }
    }

    fn not(&mut self) -> Option<Node> {
        if matches!(self.peek(), Some("!" | "-not")) {
            self.i += 1;
            self.depth += 1;
            if self.depth > MAX_DEPTH {
                return None;
            }
            let inner = self.not()?;
            self.depth -= 1;
            return Some(Node::Not(Box::new(inner)));
        }
        self.primary()
    }

    fn primary(&mut self) -> Option<Node> {
        let a = self.args.get(self.i)?;
        // A word only known when it runs may be any test or action.
        if !a.literal || a.pattern.is_some() {
            return None;
        }
        let at = self.i;
        let t = a.text.as_str();
        self.i += 1;
        let word = |p: &Parser<'_>, n: usize| -> Option<Arg> { p.args.get(p.i + n).cloned() };
        Some(match t {
            "(" => {
                self.depth += 1;
                if self.depth > MAX_DEPTH {
                    return None;
                }
                let inner = self.comma()?;
                if self.peek() != Some(")") {
                    return None;
                }
                self.i += 1;
                self.depth -= 1;
                inner
            }
            "-name" | "-iname" => {
                let p = word(self, 0)?;
                self.i += 1;
                if !p.literal {
                    Node::Test(NameTest::Unknown)
                } else {
                    Node::Test(NameTest::Glob {
                        pattern: p.text,
                        fold: t == "-iname",
                    })
                }
            }
            "-false" => Node::Test(NameTest::Never),
            "-type" => {
                let k = word(self, 0)?;
                self.i += 1;
                if k.literal && k.text == "d" && !self.follows {
                    Node::Test(NameTest::Directory)
                } else {
                    Node::Test(NameTest::Unknown)
                }
            }
            "-exec" | "-execdir" | "-ok" | "-okdir" => {
                self.acts = true;
                // What the command prints is not a list of names.
                self.formatted = true;
                let start = self.i;
                while let Some(w) = self.args.get(self.i) {
                    if w.literal
                        && (w.text == ";"
                            || (w.text == "+"
                                && self.i > start
                                && self.args.get(self.i - 1).is_some_and(|p| p.text == "{}")))
                    {
                        break;
                    }
                    self.i += 1;
                }
                self.i += 1;
                Node::Action(at, NameTest::Unknown)
            }
            "-print" | "-print0" => {
                self.acts = true;
                Node::Action(at, NameTest::Any)
            }
            "-delete" => {
                self.acts = true;
                Node::Action(at, NameTest::Unknown)
            }
            "-ls" | "-fls" | "-fprint" | "-fprint0" | "-printf" | "-fprintf" => {
                self.acts = true;
                if matches!(t, "-ls" | "-printf") {
                    self.formatted = true;
                }
                self.i += match t {
                    "-ls" => 0,
                    "-fprintf" => 2,
                    _ => 1,
                };
                Node::Action(at, NameTest::Any)
            }
            "-quit" => Node::Test(NameTest::Unknown),
            _ if TRUE_OPTIONS.contains(&t) => Node::Test(NameTest::Any),
            _ if ONE_WORD_TRUE.contains(&t) => {
                self.i += 1;
                Node::Test(NameTest::Any)
            }
            _ if ONE_WORD.contains(&t) || (t.starts_with("-newer") && t.len() > 6) => {
                self.i += 1;
                Node::Test(NameTest::Unknown)
            }
            // `-empty`, `-readable`, `-executable`, ...: not about names.
            _ if t.starts_with('-') => Node::Test(NameTest::Unknown),
            _ => return None,
        })
    }
}

/// The value of a node, as a test on names.
fn value(n: &Node) -> NameTest {
    match n {
        Node::Test(t) | Node::Action(_, t) => t.clone(),
        Node::Not(a) => NameTest::Not(Box::new(value(a))),
        Node::And(a, b) => NameTest::All(vec![value(a), value(b)]),
        Node::Or(a, b) => NameTest::Either(vec![value(a), value(b)]),
        Node::Comma(_, b) => value(b),
    }
}

/// Each action's condition, given the condition of `n`.
fn guards(n: &Node, guard: NameTest, out: &mut Vec<(usize, NameTest)>) {
    match n {
        Node::Test(_) => {}
        Node::Action(i, _) => out.push((*i, guard)),
        Node::Not(a) => guards(a, guard, out),
        Node::And(a, b) => {
            guards(a, guard.clone(), out);
            guards(b, guard.and(value(a)), out);
        }
        Node::Or(a, b) => {
            guards(a, guard.clone(), out);
            guards(b, guard.and(NameTest::Not(Box::new(value(a)))), out);
        }
        Node::Comma(a, b) => {
            guards(a, guard.clone(), out);
            guards(b, guard, out);
        }
    }
}

/// Reads the expression `args` (find's words after its starting points);
/// `None` when it cannot be read (a word only known when it runs, an
/// unbalanced parenthesis, nesting too deep). `follows`: find was given
/// `-L` before its starting points.
pub(super) fn select(args: &[Arg], follows: bool) -> Option<Selection> {
    if args.is_empty() {
        return Some(Selection {
            actions: Vec::new(),
            printed: Some(NameTest::Any),
        });
    }
    let mut p = Parser {
        args,
        i: 0,
        depth: 0,
        formatted: false,
        acts: false,
        // `-follow` anywhere in the expression acts on the whole walk.
        follows: follows || args.iter().any(|a| a.text == "-follow"),
    };
    let tree = p.comma()?;
    if p.i < args.len() {
        return None;
    }
    let mut actions = Vec::new();
    guards(&tree, NameTest::Any, &mut actions);
    let printed = if p.formatted {
        None
    } else if !p.acts {
        Some(value(&tree))
    } else {
        let prints: Vec<NameTest> = actions
            .iter()
            .filter(|(i, _)| {
                args.get(*i)
                    .is_some_and(|a| matches!(a.text.as_str(), "-print" | "-print0"))
            })
            .map(|(_, g)| g.clone())
            .collect();
        Some(NameTest::Either(prints))
    };
    Some(Selection { actions, printed })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sel(s: &str) -> Option<Selection> {
        let args: Vec<Arg> = s.split_whitespace().map(Arg::lit).collect();
        select(&args, false)
    }

    fn exec_guard(s: &str) -> NameTest {
        let s = sel(s).expect("readable");
        s.actions
            .into_iter()
            .next()
            .map(|(_, g)| g)
            .expect("an action")
    }

    #[test]
    fn conditions_of_actions() {
        // Checked against findutils 4.9: `find . -name '*.rs' -exec echo {} +`
        // prints only the .rs files; with `-o` the others.
        let g = exec_guard("-name *.rs -exec cat {} +");
        assert_eq!(g.eval("a.rs"), Some(true));
        assert_eq!(g.eval(".env"), Some(false));
        let g = exec_guard("-name *.rs -o -exec cat {} ;");
        assert_eq!(g.eval("a.rs"), Some(false));
        assert_eq!(g.eval(".env"), Some(true));
        let g = exec_guard("! -name *.rs -exec cat {} ;");
        assert_eq!(g.eval(".env"), Some(true));
        let g = exec_guard("-type f -name *.c -exec wc -l {} +");
        assert_eq!(g.eval(".env"), Some(false));
        assert_eq!(g.eval("a.c"), None);
        let g = exec_guard("( -name *.c -o -name *.h ) -exec cat {} +");
        assert_eq!(g.eval("x.h"), Some(true));
        assert_eq!(g.eval(".env"), Some(false));
        let g = exec_guard("-iname *.ENV -exec cat {} +");
        assert_eq!(g.eval(".env"), Some(true));
        // `-size` is not about names: under `!` it is still unknown.
        let g = exec_guard("! -size +1k -exec cat {} +");
        assert_eq!(g.eval(".env"), None);
        let g = exec_guard("-maxdepth 1 -name *.md -exec cat {} +");
        assert_eq!(g.eval(".env"), Some(false));
        let g = exec_guard("-path ./target -prune -o -name *.rs -exec cat {} +");
        assert_eq!(g.eval(".env"), Some(false));
        assert_eq!(g.eval("a.rs"), None);
    }

    #[test]
    fn what_is_printed() {
        let p = sel("-name *.txt").and_then(|s| s.printed).expect("printed");
        assert_eq!(p.eval("a.txt"), Some(true));
        assert_eq!(p.eval(".env"), Some(false));
        let p = sel("-name *.c -o -name *.h")
            .and_then(|s| s.printed)
            .expect("printed");
        assert_eq!(p.eval("a.h"), Some(true));
        assert_eq!(p.eval(".env"), Some(false));
        let p = sel("-name *.c -print -o -print")
            .and_then(|s| s.printed)
            .expect("printed");
        assert_eq!(p.eval(".env"), Some(true));
        assert!(sel("-name *.c -exec cat {} +").is_some_and(|s| s.printed.is_none()));
        assert!(sel("-name *.c -printf %s\\n").is_some_and(|s| s.printed.is_none()));
        assert!(sel("").is_some_and(|s| s.printed == Some(NameTest::Any)));
        assert!(sel("( -name x").is_none());
        let deep = format!("{} -name x {}", "(".repeat(200), ")".repeat(200));
        assert!(sel(&deep).is_none());
    }
}
