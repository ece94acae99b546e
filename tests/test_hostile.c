#include "util.h"
int main(void) { return 0; }
