"""The dialects of hand histories the audit reads: the house format and the online sites' logs.

``registry.py`` lists them (name, the first lines that open a hand, the parser, the profile, what a hand shows);
``dispatch.py`` hands each block to its dialect's parser; ``common.py`` holds what the parsers share. A new
dialect is a grammar (``grammar/<name>.lark``), one module here and one line in the registry.
"""
