"""The dialects of hand histories the audit reads: the house format and the online sites' logs.

``registry.py`` is each dialect's one spec (name, the first lines that open its blocks, its parse function, its
profile, what a hand shows, its grammar, the file names it takes, whether it is compiled); ``contract.py`` the
types a parse function and a site builder follow; ``dispatch.py`` hands each block to its dialect's parser;
``common.py`` holds what the parsers share. A new dialect is its module here, its grammar or spec, its fixtures
and one line in the registry.
"""
