# __xor__.Tensor-336 (seed 1302; inputs: normal, normal)
def forward(a0, a1):
    return keep('__xor__.Tensor')(a0.select(-3, 0), a1.expand(110, 7, 1))

