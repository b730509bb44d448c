"""Baseline studies: many experts, one plan, one database (issue 17).

`model.py` the plain data (Study, Seat, StudyError), `assign.py` the pure plan (which participant
works which tasks, in which order), `db.py` the studies' SQL over the Store. Nothing here imports
textual or a dataframe library.
"""
