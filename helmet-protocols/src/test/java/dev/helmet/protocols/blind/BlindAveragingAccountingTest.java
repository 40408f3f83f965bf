package dev.helmet.protocols.blind;

import dev.helmet.privacy.accounting.GaussianReleases;
import dev.helmet.protocols.shared.HonestParties;
import dev.helmet.protocols.privacy.Protection;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.helmet.core.learn.Learner;
import dev.helmet.core.learn.LearnerConfig;
import dev.helmet.core.learn.LearnerKind;
import dev.helmet.core.learn.SmoothnessBound;
import org.junit.jupiter.api.Test;

class BlindAveragingAccountingTest {
  private final Learner learner = new Learner(
      new LearnerConfig(LearnerKind.SOFTMAX, 0.5, 2, 1, 1, SmoothnessBound.TIGHT, 0.1), Math.sqrt(101), 784, 10);

  @Test
  void partiesWhoseSizeTheBatchDoesNotDivideRaiseTheScaledSensitivity() {
    Learner b5 = new Learner(new LearnerConfig(LearnerKind.SOFTMAX, 0.5, 2, 1, 5, SmoothnessBound.TIGHT, 0.1),
        Math.sqrt(101), 784, 10);
    double even = BlindAveragingAccounting.scaledSensitivity(b5, Protection.record(), new int[] {60});
    double odd = BlindAveragingAccounting.scaledSensitivity(b5, Protection.record(), new int[] {60, 52});
    assertEquals(2 * b5.gradientBound() / 0.5, even, 1e-9);
    assertEquals(52 * 2 * b5.gradientBound() / (0.5 * 44), odd, 1e-9); // 11 batches of >= 4 points
  }

  @Test
  void theNeighbourRelationNamesTheProtectedUnit() {
    assertEquals("replace one record", BlindAveragingAccounting.neighbours(Protection.record()));
    assertEquals("replace one party's whole data set", BlindAveragingAccounting.neighbours(Protection.user()));
  }

  @Test
  void scaledSensitivityIsTwoLOverLambdaForRecordsWhateverTheLocalSize() {
    // batch size 1 divides every n: n s(n) = 2L/Lambda exactly
    double s = BlindAveragingAccounting.scaledSensitivity(learner, Protection.record(), new int[] {60, 7, 60});
    assertEquals(2 * learner.gradientBound() / 0.5, s, 1e-9);
    assertEquals(learner.sensitivity(60) * 60, s, 1e-9);
  }

  @Test
  void groupsTakeTheSmallerOfUpsilonTimesSAndTwoR() {
    int[] sizes = {60, 40};
    double record = BlindAveragingAccounting.scaledSensitivity(learner, Protection.record(), sizes);
    assertEquals(3 * record, BlindAveragingAccounting.scaledSensitivity(learner, Protection.group(3), sizes), 1e-9);
    assertEquals(2 * 2 * 60, BlindAveragingAccounting.scaledSensitivity(learner, Protection.group(1000), sizes), 1e-9);
    assertEquals(2 * 2 * 60, BlindAveragingAccounting.scaledSensitivity(learner, Protection.user(), sizes), 1e-9);
  }

  @Test
  void achievedNoiseShrinksWithFewerHonestContributors() {
    int planned = HonestParties.honestContributors(100, 100, 0.5);
    assertEquals(50, planned);
    assertEquals(7.0, BlindAveragingAccounting.achievedNoiseMultiplier(7, planned, planned), 0);
    int fewer = HonestParties.honestContributors(80, 100, 0.5); // 30
    assertEquals(7 * Math.sqrt(30.0 / 50), BlindAveragingAccounting.achievedNoiseMultiplier(7, planned, fewer), 1e-9);
    assertEquals(0, BlindAveragingAccounting.achievedNoiseMultiplier(7, planned, -3));
    assertTrue(GaussianReleases.epsilon(7 * Math.sqrt(0.6), 1, 1e-5) > GaussianReleases.epsilon(7, 1, 1e-5));
  }

  /**
   * The dishonest parties are an integer count, at most (1 - t) w: exactly that many when it is an
   * integer (the discrete path once counted one honest party too few), its floor otherwise, and t
   * is read as the decimal the user wrote (0.9 of 10 parties leaves exactly 1 dishonest).
   */
  @Test
  void honestContributorsCountWholeDishonestParties() {
    assertEquals(500, HonestParties.honestContributors(1000, 1000, 0.5));
    assertEquals(9, HonestParties.honestContributors(10, 10, 0.9));
    assertEquals(1, HonestParties.honestContributors(10, 10, 0.1));
    assertEquals(2, HonestParties.honestContributors(3, 3, 0.5)); // at most 1.5, so 1 dishonest
    assertEquals(0, HonestParties.honestContributors(2, 4, 0.5));
    assertEquals(-1, HonestParties.honestContributors(1, 4, 0.5));
    assertEquals(1000, HonestParties.honestContributors(1000, 1000, 1));
  }
  /**
   * The noise is sized for the contributors whose shares the adversary cannot know: the dishonest
   * ones are out, and so is one observing participant even when none may be dishonest (privacy
   * review turn 3, finding 4). With one party there is nobody else to observe.
   */
  @Test
  void noiseHonestLeavesOutTheObservingParticipantEvenAtHonestFractionOne() {
    assertEquals(9, HonestParties.noiseHonest(10, 10, 1));
    assertEquals(9, HonestParties.noiseHonest(10, 10, 0.95)); // floor(0.5) = 0 dishonest, one observer
    assertEquals(9, HonestParties.noiseHonest(10, 10, 0.9)); // the one dishonest party is the observer
    assertEquals(500, HonestParties.noiseHonest(1000, 1000, 0.5));
    assertEquals(1, HonestParties.noiseHonest(1, 1, 1));
    assertEquals(1, HonestParties.noiseHonest(2, 2, 1));
    assertEquals(0, HonestParties.noiseHonest(1, 2, 1));
    String why = HonestParties.honestProblem(1, 2, 1);
    assertTrue(why != null && why.contains("min_contributors") && why.contains("its own noise share"), why);
    assertEquals(null, HonestParties.honestProblem(2, 2, 1));
  }
}
