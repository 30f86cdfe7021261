//! The grammar's node kinds and fields, each read once, and the helpers that
//! walk a node's children by field.

use super::*;

/// A node's children with their field names, in one pass of a cursor
/// (asking for the field of the i-th child is linear in i).
pub(super) fn fields(node: TsNode<'_>) -> Fields<'_> {
    Fields {
        cursor: node.walk(),
        state: FieldsState::Start,
    }
}

/// The iterator of [`fields`].
pub(super) struct Fields<'t> {
    pub(super) cursor: tree_sitter::TreeCursor<'t>,
    pub(super) state: FieldsState,
}

pub(super) enum FieldsState {
    Start,
    On,
    Done,
}

impl<'t> Iterator for Fields<'t> {
    type Item = (TsNode<'t>, Option<&'static str>);

    fn next(&mut self) -> Option<Self::Item> {
        let moved = match self.state {
            FieldsState::Start => self.cursor.goto_first_child(),
            FieldsState::On => self.cursor.goto_next_sibling(),
            FieldsState::Done => false,
        };
        if !moved {
            self.state = FieldsState::Done;
            return None;
        }
        self.state = FieldsState::On;
        let field = self
            .cursor
            .field_id()
            .and_then(|f| grammar().field_name(f.get()));
        Some((self.cursor.node(), field))
    }
}

/// The grammar's node kinds and field names by id, each read once.
///
/// tree-sitter's `Node::kind` and `TreeCursor::field_name` measure and
/// validate a C string on every call, and `child_by_field_name` searches
/// the field names for each lookup; the conversion asks these for every
/// node, so it asks this table instead.
pub(super) struct Grammar {
    lang: Language,
    /// Each kind's name, read from the grammar the first time a node of
    /// that kind is seen (a command meets a few dozen of the grammar's
    /// hundreds; reading all of them was a visible share of a hook run).
    kinds: Box<[OnceLock<&'static str>]>,
    /// Each field's name, the same way.
    fields: Box<[OnceLock<&'static str>]>,
    pub(super) body: Option<NonZeroU16>,
    pub(super) condition: Option<NonZeroU16>,
    pub(super) descriptor: Option<NonZeroU16>,
    pub(super) destination: Option<NonZeroU16>,
    pub(super) initializer: Option<NonZeroU16>,
    pub(super) name: Option<NonZeroU16>,
    pub(super) redirect: Option<NonZeroU16>,
    pub(super) update: Option<NonZeroU16>,
    pub(super) value: Option<NonZeroU16>,
    pub(super) variable: Option<NonZeroU16>,
}

impl Grammar {
    /// The name of kind `id` (empty for an id without one).
    fn kind_name(&self, id: u16) -> Option<&'static str> {
        let slot = self.kinds.get(usize::from(id))?;
        Some(*slot.get_or_init(|| self.lang.node_kind_for_id(id).unwrap_or("")))
    }

    /// The name of field `id`.
    fn field_name(&self, id: u16) -> Option<&'static str> {
        let slot = self.fields.get(usize::from(id))?;
        Some(*slot.get_or_init(|| self.lang.field_name_for_id(id).unwrap_or("")))
    }
}

pub(super) fn grammar() -> &'static Grammar {
    static GRAMMAR: OnceLock<Grammar> = OnceLock::new();
    GRAMMAR.get_or_init(|| {
        let lang: Language = tree_sitter_bash::LANGUAGE.into();
        let slots = |n: usize| (0..n).map(|_| OnceLock::new()).collect();
        let id = |name: &str| lang.field_id_for_name(name);
        Grammar {
            kinds: slots(lang.node_kind_count()),
            fields: slots(lang.field_count() + 1),
            body: id("body"),
            condition: id("condition"),
            descriptor: id("descriptor"),
            destination: id("destination"),
            initializer: id("initializer"),
            name: id("name"),
            redirect: id("redirect"),
            update: id("update"),
            value: id("value"),
            variable: id("variable"),
            lang,
        }
    })
}

/// A node's kind (`command`, `word`, `ERROR`, ...).
pub(super) fn kind(node: TsNode<'_>) -> &'static str {
    grammar()
        .kind_name(node.kind_id())
        .filter(|k| !k.is_empty())
        // Ids past the table (the error symbols) are asked directly.
        .unwrap_or_else(|| node.kind())
}

/// A node's child in a field.
pub(super) fn field<'t>(node: TsNode<'t>, field: Option<NonZeroU16>) -> Option<TsNode<'t>> {
    field.and_then(|f| node.child_by_field_id(f.get()))
}

/// A node's children in a field.
pub(super) fn field_all<'t>(node: TsNode<'t>, field: Option<NonZeroU16>) -> Vec<TsNode<'t>> {
    let Some(f) = field else {
        return Vec::new();
    };
    let mut cursor = node.walk();
    node.children_by_field_id(f, &mut cursor).collect()
}

pub(super) fn is_statement(kind: &str) -> bool {
    matches!(
        kind,
        "c_style_for_statement"
            | "case_statement"
            | "command"
            | "compound_statement"
            | "declaration_command"
            | "for_statement"
            | "function_definition"
            | "if_statement"
            | "list"
            | "negated_command"
            | "pipeline"
            | "redirected_statement"
            | "subshell"
            | "test_command"
            | "unset_command"
            | "variable_assignment"
            | "variable_assignments"
            | "while_statement"
    )
}
