"""Analysis of one file: reading, prefilter, names, the facts of a module and the plan of its fixes."""
