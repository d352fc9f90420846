from npu_adapter import *

print(VERSION)
