package dev.tandem.core.compat;

import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import java.util.function.Function;

/**
 * Measures how a model generalises to DL models it has never seen paired: for each model X, train on the
 * pairs that do not involve X and predict the pairs that do.
 */
public final class LeaveOneModelOut {
    /** One held-out model's result. {@code pairs} counts the held-out pairs. */
    public record Row(String heldOut, int pairs, double maePerJob, double spearmanCombined) {}

    /** All rows plus the pooled figures over every held-out prediction. */
    public record Result(String modelName, List<Row> rows, double maePerJob, double spearmanCombined, double pearsonCombined) {}

    private LeaveOneModelOut() {}

    public static Result evaluate(List<PairObservation> data, Function<List<PairObservation>, CompatibilityModel> trainer) {
        TreeSet<String> models = new TreeSet<>();
        for (PairObservation o : data) {
            models.add(o.a().signature().model());
            models.add(o.b().signature().model());
        }
        List<Row> rows = new ArrayList<>();
        List<double[]> pooled = new ArrayList<>(); // {predA, actA, predB, actB}
        String name = null;
        for (String held : models) {
            List<PairObservation> train = new ArrayList<>();
            List<PairObservation> test = new ArrayList<>();
            for (PairObservation o : data) {
                boolean involves = o.a().signature().model().equals(held) || o.b().signature().model().equals(held);
                (involves ? test : train).add(o);
            }
            if (test.isEmpty() || train.isEmpty()) continue;
            CompatibilityModel m = trainer.apply(train);
            name = m.name();
            double[] pj = new double[test.size() * 2], aj = new double[test.size() * 2];
            double[] pc = new double[test.size()], ac = new double[test.size()];
            for (int i = 0; i < test.size(); i++) {
                PairObservation o = test.get(i);
                PairPrediction p = m.predict(o.a(), o.b());
                pj[2 * i] = p.speedA(); aj[2 * i] = o.speedA();
                pj[2 * i + 1] = p.speedB(); aj[2 * i + 1] = o.speedB();
                pc[i] = p.combined(); ac[i] = o.combined();
                pooled.add(new double[] {p.speedA(), o.speedA(), p.speedB(), o.speedB()});
            }
            rows.add(new Row(held, test.size(), Stats.mae(pj, aj), Stats.spearman(pc, ac)));
        }
        double[] pj = new double[pooled.size() * 2], aj = new double[pooled.size() * 2];
        double[] pc = new double[pooled.size()], ac = new double[pooled.size()];
        for (int i = 0; i < pooled.size(); i++) {
            double[] r = pooled.get(i);
            pj[2 * i] = r[0]; aj[2 * i] = r[1]; pj[2 * i + 1] = r[2]; aj[2 * i + 1] = r[3];
            pc[i] = r[0] + r[2]; ac[i] = r[1] + r[3];
        }
        return new Result(name, rows, Stats.mae(pj, aj), Stats.spearman(pc, ac), Stats.pearson(pc, ac));
    }
}
