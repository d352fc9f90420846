"""The project a run checks, as the rules see it: every file under its real identity with each module name it
is imported under (`identity`), and what each file imports and binds, kept between runs (`import_facts`).
Below the rules, which read them, and the run, which builds them."""
