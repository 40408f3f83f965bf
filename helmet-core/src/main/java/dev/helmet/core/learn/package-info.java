/**
 * The local learners: projected mini-batch SGD for softmax, SVM (Huber) and logistic regression,
 * with their Lipschitz, smoothness and sensitivity bounds ({@link dev.helmet.core.learn.Learner}).
 */
package dev.helmet.core.learn;
