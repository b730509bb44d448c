"""The SOQL and SOSL grammar (lark, LALR with a contextual lexer).

Keywords are case-insensitive. The contextual lexer reads a keyword only where the parser can take
it, so object and field names that look like keywords (`Order`, `Name`) stay names elsewhere.
Date literals (`TODAY`, `LAST_N_DAYS:30`), `TRUE`, `FALSE` and `NULL` are words in value position,
resolved after parsing. Anything the grammar does not know (`;`, `--`, `/*`, double quotes) is a
syntax error, so nothing but a single SELECT or FIND statement ever gets through. As in Salesforce,
AND and OR cannot be mixed, nor NOT used beside them, without parentheses (the parser checks).
Clauses that change nothing an administrator reads on a local org are parsed and have no effect:
`USING SCOPE everything`, `WITH SECURITY_ENFORCED` (or `USER_MODE`, `SYSTEM_MODE`), `FOR VIEW`,
`FOR REFERENCE`, and SOSL's `WITH SNIPPET` (the records are the same; no snippet is made).
`TYPEOF rel WHEN Obj THEN fields ... [ELSE fields] END` is a SELECT item (`typeof`).
"""

# Salesforce's reserved words: never an object, field, function or alias name.
RESERVED = frozenset(
    [
        "AND",
        "ASC",
        "DESC",
        "EXCLUDES",
        "FIRST",
        "FROM",
        "GROUP",
        "HAVING",
        "IN",
        "INCLUDES",
        "LAST",
        "LIKE",
        "LIMIT",
        "NOT",
        "NULL",
        "NULLS",
        "OR",
        "SELECT",
        "WHERE",
        "WITH",
        "OFFSET",
        "FIND",
        "RETURNING",
    ]
)

GRAMMAR = r"""
soql: SELECT select_list FROM IDENT using_clause? where_clause? with_clause? group_clause? having_clause? order_clause? limit_clause? offset_clause? for_clause?

select_list: select_item ("," select_item)*
select_item: field_expr IDENT?      -> sel_expr
           | "(" soql ")"           -> sel_child
           | TYPEOF IDENT when_branch+ [ELSE typeof_fields] END -> sel_typeof

when_branch: WHEN IDENT THEN typeof_fields
typeof_fields: path ("," path)*

?field_expr: path | call
path: IDENT ("." IDENT)*
call: IDENT "(" [call_arg] ")"
?call_arg: path | call

where_clause: WHERE cond
having_clause: HAVING cond

?cond: and_cond
     | cond OR and_cond              -> cond_or
?and_cond: not_cond
     | and_cond AND not_cond         -> cond_and
?not_cond: atom
     | NOT not_cond                  -> cond_not
?atom: "(" cond ")"                 -> paren
     | comparison

comparison: field_expr OP value                      -> cmp
          | field_expr LIKE value                    -> cmp_like
          | field_expr IN "(" in_list ")"            -> cmp_in
          | field_expr NOT IN "(" in_list ")"        -> cmp_not_in
          | field_expr INCLUDES "(" value_list ")"   -> cmp_includes
          | field_expr EXCLUDES "(" value_list ")"   -> cmp_excludes

?in_list: value_list | soql
value_list: value ("," value)*
value: STRING              -> v_string
     | NUMBER              -> v_number
     | DATE                -> v_date
     | DATETIME            -> v_datetime
     | IDENT               -> v_word
     | IDENT ":" INT       -> v_word_n

group_clause: GROUP BY field_expr ("," field_expr)*
order_clause: ORDER BY order_item ("," order_item)*
order_item: field_expr [ASC | DESC] [NULLS (FIRST | LAST)]
limit_clause: LIMIT INT
offset_clause: OFFSET INT
using_clause: USING SCOPE IDENT
with_clause: WITH (SECURITY_ENFORCED | USER_MODE | SYSTEM_MODE)
for_clause: FOR (VIEW | REFERENCE)

sosl: FIND search_text scope_clause? returning_clause? snippet_clause? limit_clause?
snippet_clause: WITH SNIPPET ["(" IDENT OP INT ")"]
search_text: BRACED | STRING
scope_clause: IN scope_word FIELDS
scope_word: ALL | NAME_KW | EMAIL | PHONE | SIDEBAR
returning_clause: RETURNING returning_item ("," returning_item)*
returning_item: IDENT returning_spec?
returning_spec: "(" select_list where_clause? order_clause? limit_clause? offset_clause? ")"

SELECT: "select"i
FROM: "from"i
WHERE: "where"i
GROUP: "group"i
HAVING: "having"i
ORDER: "order"i
BY: "by"i
ASC: "asc"i
DESC: "desc"i
NULLS: "nulls"i
FIRST: "first"i
LAST: "last"i
LIMIT: "limit"i
OFFSET: "offset"i
AND: "and"i
OR: "or"i
NOT: "not"i
IN: "in"i
LIKE: "like"i
INCLUDES: "includes"i
EXCLUDES: "excludes"i
FIND: "find"i
RETURNING: "returning"i
FIELDS: "fields"i
ALL: "all"i
NAME_KW: "name"i
EMAIL: "email"i
PHONE: "phone"i
SIDEBAR: "sidebar"i
USING: "using"i
SCOPE: "scope"i
WITH: "with"i
SECURITY_ENFORCED: "security_enforced"i
USER_MODE: "user_mode"i
SYSTEM_MODE: "system_mode"i
FOR: "for"i
VIEW: "view"i
REFERENCE: "reference"i
SNIPPET: "snippet"i
TYPEOF: "typeof"i
WHEN: "when"i
THEN: "then"i
ELSE: "else"i
END: "end"i

OP: "!=" | "<>" | "<=" | ">=" | "=" | "<" | ">"
IDENT: /[A-Za-z][A-Za-z0-9_]*/
STRING: /'(?:\\.|[^'\\])*'/
BRACED: /\{(?:\\.|[^\\}])*\}/
DATETIME.3: /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,6})?(?:Z|[+-]\d{2}:?\d{2})/
DATE.2: /\d{4}-\d{2}-\d{2}/
NUMBER: /[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?/
INT: /\d+/

%ignore /[ \t\r\n\f]+/
"""
