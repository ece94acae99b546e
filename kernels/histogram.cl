/* histogram.cl - placeholder until the primitive lands. */
