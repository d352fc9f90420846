from pkg import DEVICE

print(DEVICE)
