/* The CPU half of the user-defined test objective: test_bowl_cpu() and test_bowl(). */
#include "user_objective.h"

STENC_NM_DEFINE_SOLVER(test_bowl, bowl_fn)
