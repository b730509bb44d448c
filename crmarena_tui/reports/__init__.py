"""Reports over the sessions database: success rates, human time, human vs agent, labels,
annotator agreement and step alignment. Pure functions; no textual."""
