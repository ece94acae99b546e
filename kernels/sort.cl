/* sort.cl - placeholder until the primitive lands. */
