"""Input and Python's math result for special.mlir: writes PREFIX.x.npy and
PREFIX.ref.npy."""
import math
import sys

import numpy as np

prefix = sys.argv[1]
x = np.linspace(-1.2, 1.3, 37, dtype=np.float32)
ref = [math.erf(v) + math.erfc(2 * v) + math.atan(v) + math.atan2(v, 2.0) +
       0.1 * math.tan(v) + math.copysign(abs(v) ** (1 / 3), v) for v in x.astype(float)]
np.save(prefix + ".x.npy", x)
np.save(prefix + ".ref.npy", np.array(ref, dtype=np.float32))
