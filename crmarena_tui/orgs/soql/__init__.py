"""SOQL and SOSL for the local org: text -> `parser` (lark LALR) -> `nodes` -> `translate` (with
`scope` for fields and parent joins, `conditions` for WHERE/HAVING, `sosl` for search terms,
`expand` for FIELDS(), and `rules` for what Salesforce refuses, checked unless the org is lenient)
-> parameterised SQLite SQL -> rows -> `shape` (Salesforce-shaped records). `engine` ties the steps
together; `errors` holds Salesforce's error codes and messages."""
