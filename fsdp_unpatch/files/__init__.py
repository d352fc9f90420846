"""Reading and writing the files a run touches: source files read exactly (`reading`), written without ever
losing a line (`writing`), regular files opened without blocking (`regular`), signals held while a file is
written (`signals`), the user's signing key (`signing`), and the one walk of folders (`walk`). Nothing here
knows about FSDP2 or the rules' logic; every other package reads and writes through these public helpers.
"""
