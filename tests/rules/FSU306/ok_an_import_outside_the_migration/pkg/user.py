from pkg.util import helper, renamed_long_ago

print(helper(), renamed_long_ago)
