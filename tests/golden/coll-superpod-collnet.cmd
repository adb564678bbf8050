# CollNet (SHARP) on 4 SuperPOD nodes, the SuperPOD with sharp = true
coll --cluster $SRC/tests/golden/dgx-h100-superpod-sharp.ini --nodes 4 -b 1M -e 1G -f 32
full: none
