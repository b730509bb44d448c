"""Org backends behind one protocol: the embedded local org and a real Salesforce org."""
