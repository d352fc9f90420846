"""The rules: what each finding means, when it fires and how it is fixed."""
